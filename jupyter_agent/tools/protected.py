"""Paths no tool changes without the user, and credential stores no tool reads.

*Protected* paths always ask, whatever the permission rules say (a headless run refuses
them): a rule the agent could write for itself must not take effect without the user, and
git runs commands its config and hooks name. They are every configuration file the agent
reads (``jupyter-agent.json`` in any folder, the user config folder, the system config),
the session store ``.jupyter-agent/``, a repository's ``.git`` file (a submodule's and a
linked worktree's too), ``config``, ``hooks/``, ``info/``, ``commondir`` and ``gitdir``,
the modules a kernel started in the notebook's folder imports from it before anything else
(``ipykernel_launcher.py`` …), and what the ``protected`` config key lists. Inside the
sandbox they are read-only (``tools/sandbox_layout.py``, ``tools/git_stage.py``).

*Hidden* paths (``sandbox.deny_read`` and the credential stores below) are refused by the
file tools and covered by an empty file or folder inside the sandbox.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.core.user_dirs import user_data_dir

CONFIG_NAME = "jupyter-agent.json"
STORE_NAME = ".jupyter-agent"
GIT_RUNS = frozenset({"config", "config.worktree", "hooks", "info", "commondir", "gitdir"})
"""What inside a git directory decides which commands git runs (fsmonitor, hooks, attributes;
``commondir`` names the folder whose ``config`` git reads instead, ``gitdir`` the worktree)."""
KERNEL_START = (
    "ipykernel_launcher.py",
    "ipykernel",
    "ipykernel.py",
    "IPython",
    "IPython.py",
    "sitecustomize.py",
    "usercustomize.py",
)
"""What a kernel started in the notebook's folder imports from that folder before any of its
own code (``python -m ipykernel_launcher`` puts the folder first on ``sys.path``)."""
SYSTEM_CONFIG_DIR = Path("/etc/jupyter-agent")


def user_config_dir(env: Mapping[str, str]) -> Path:
    """The user config folder, as ``config.global_config_dir`` finds it."""
    return Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "jupyter-agent"


def jupyter_runtime_dir(env: Mapping[str, str]) -> Path:
    """Where Jupyter keeps kernel connection files and server tokens (either opens the kernel),
    found as ``jupyter --runtime-dir`` finds it on Linux and macOS."""
    if env.get("JUPYTER_RUNTIME_DIR"):
        return Path(env["JUPYTER_RUNTIME_DIR"])
    if env.get("JUPYTER_DATA_DIR"):
        return Path(env["JUPYTER_DATA_DIR"]) / "runtime"
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Jupyter" / "runtime"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "jupyter" / "runtime"


def credential_stores(env: Mapping[str, str]) -> list[Path]:
    """The user's credential stores: keys, cloud and registry logins, tokens."""
    home = Path(env.get("HOME") or Path.home())
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return [
        home / ".ssh",
        home / ".aws",
        config / "gcloud",
        home / ".azure",
        home / ".kube",
        home / ".docker" / "config.json",
        home / ".netrc",
        home / ".git-credentials",
        home / ".pypirc",
        home / ".npmrc",
        home / ".gnupg",
        config / "gh",
        user_config_dir(env),
        user_data_dir(env),
        jupyter_runtime_dir(env),
    ]


def _expand(entry: str, root: Path) -> Path:
    path = Path(entry).expanduser()
    return path if path.is_absolute() else root / path


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _both(path: Path) -> set[Path]:
    """A path as written and with its links resolved (a rule must hold for either name)."""
    try:
        return {path, path.resolve()}
    except (OSError, RuntimeError):
        return {path}


def project_root(start: Path) -> Path:
    """The nearest folder holding ``.git`` (the project), else ``start`` itself."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def git_dirs(root: Path) -> list[Path]:
    """The repository's git folders: ``.git``, or where a ``.git`` file points (a worktree or
    submodule) and that folder's common directory."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return [dot_git]
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return []
    if not text.startswith("gitdir:"):
        return []
    gitdir = _expand(text.split(":", 1)[1].strip(), root)
    found = [gitdir]
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return found
    found.append(_expand(common, gitdir))
    return found


def _read_small(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:65536]
    except OSError:
        return ""


def linked_gitfiles(gitdir: Path) -> list[Path]:
    """The ``.git`` files of a repository's submodules and linked worktrees: each names the
    git folder git uses there (a submodule's ``core.worktree``, a worktree's ``gitdir``)."""
    found: list[Path] = []
    worktrees = gitdir / "worktrees"
    for entry in sorted(worktrees.iterdir()) if worktrees.is_dir() else []:
        named = _read_small(entry / "gitdir").strip()
        if named:
            found.append(_expand(named, entry))
    pending = [gitdir / "modules"]
    while pending:
        folder = pending.pop()
        for entry in sorted(folder.iterdir()) if folder.is_dir() and not folder.is_symlink() else []:
            if (entry / "HEAD").is_file():
                match = re.search(r"^\s*worktree\s*=\s*(.+?)\s*$", _read_small(entry / "config"), re.M)
                if match:
                    found.append(_expand(match.group(1).strip('"'), entry) / ".git")
                pending.append(entry / "modules")
            elif entry.is_dir() and not entry.is_symlink():
                pending.append(entry)  # a submodule named with slashes (lib/x)
    return [Path(os.path.normpath(p)) for p in found]


@dataclass(frozen=True)
class Guard:
    """The protected and hidden paths of one runtime (built from config in ``agent/compose.py``)."""

    hidden: tuple[Path, ...] = field(default_factory=lambda: tuple(credential_stores(os.environ)))
    config_paths: tuple[Path, ...] = field(
        default_factory=lambda: (user_config_dir(os.environ), SYSTEM_CONFIG_DIR)
    )
    extra: tuple[str, ...] = ()
    """The ``protected`` config key: paths relative to the project root, or absolute."""
    stores: tuple[Path, ...] = ()
    """The session store when it is not ``.jupyter-agent/`` (``store``, a read-only folder's)
    and the folder holding such stores: protected wherever they are."""
    audit: Path | None = None
    """The admin's audit folder (``audit``): the agent must not rewrite its own trail."""

    @classmethod
    def build(
        cls,
        env: Mapping[str, str],
        protected: Iterable[str] = (),
        deny_read: Iterable[str] = (),
        stores: Iterable[Path] = (),
        audit: Path | None = None,
    ) -> Guard:
        home = Path(env.get("HOME") or Path.home())
        config_paths = [user_config_dir(env), SYSTEM_CONFIG_DIR]
        if env.get("JUPYTER_AGENT_SYSTEM_CONFIG"):
            config_paths.append(Path(env["JUPYTER_AGENT_SYSTEM_CONFIG"]))
        hidden = credential_stores(env) + [_expand(e, home) for e in deny_read]
        return cls(
            hidden=tuple(hidden),
            config_paths=tuple(config_paths),
            extra=tuple(protected),
            stores=tuple(stores),
            audit=audit,
        )

    @functools.cached_property
    def _hidden_names(self) -> list[tuple[Path, set[Path]]]:
        return [(entry, _both(entry)) for entry in self.hidden]

    def hides(self, path: Path) -> Path | None:
        """The hidden store ``path`` is in (or is), else None."""
        names = _both(path)
        for entry, spellings in self._hidden_names:
            if any(_within(name, e) for name in names for e in spellings):
                return entry
        return None

    def concrete(self, root: Path, working_dir: Path) -> Iterator[tuple[Path, str]]:
        """Every protected path of this project, existing or not, with why it is protected."""
        folder = working_dir
        while True:
            yield folder / CONFIG_NAME, "a jupyter-agent configuration file"
            yield folder / STORE_NAME, "the session store"
            if folder == root or root not in folder.parents:
                break
            folder = folder.parent
        for above in folder.parents:  # the config is looked for up to / (config.find_project_file)
            yield above / CONFIG_NAME, "a jupyter-agent configuration file"
        for name in KERNEL_START:
            yield working_dir / name, "a kernel started in this folder runs it"
        yield root / ".git", "it tells git where the repository is"
        for gitdir in git_dirs(root) or [root / ".git"]:
            for name in sorted(GIT_RUNS):
                yield gitdir / name, "git runs the commands it names"
            for gitfile in linked_gitfiles(gitdir):
                yield gitfile, "it tells git where the repository is"
        for entry in self.config_paths:
            yield entry, "a jupyter-agent configuration file"
        for store in self.stores:
            yield store, "the session store"
        if self.audit is not None:
            yield self.audit, "the administrator's audit trail"
        for listed in self.extra:
            yield _expand(listed, root), 'listed in "protected"'

    def protects(self, path: Path, root: Path, working_dir: Path) -> str | None:
        """Why writing ``path`` must be asked (whatever the rules say), else None."""
        names = _both(path)
        for name in names:
            parts = name.parts
            if name.name == CONFIG_NAME:
                return "a jupyter-agent configuration file"
            if STORE_NAME in parts:
                return "the session store"
            if ".git" in parts:
                after = parts[len(parts) - parts[::-1].index(".git") :]
                if not after:
                    return "it tells git where the repository is"
                if GIT_RUNS & set(after):
                    return "git runs the commands it names"
        for target, why in self.concrete(root, working_dir):
            if any(_within(name, t) for name in names for t in _both(target)):
                return why
        return None
