"""The mounts of one sandbox: what a command may write, what is read-only, what is hidden.

Built by :meth:`Layout.plan` from the project, the config's ``sandbox`` settings and the
protected paths; :meth:`Layout.args` turns it into bubblewrap arguments. Inside it:

- the whole filesystem is read-only except the project root, the system temp folder and
  ``sandbox.writable``;
- inside those, the protected paths (``tools/protected.py``) and code that runs outside the
  sandbox later (:func:`runs_later`) are read-only, and every folder above them is a mount
  point, which cannot be renamed away; one that does not exist yet is swept after the
  command (``tools/sweep.py``) — a convenience, not the boundary;
- git folders are staged (``tools/git_stage.py``): the command records work, never config;
- credential stores, jupyter-agent's own folders and local control sockets are covered by
  an empty file or folder.

``tools/sandbox.py`` runs ``bash`` in it; a contained kernel (``contained/``) runs in the
same layout, with three differences it asks for: its session store is writable
(``store``), jupyter-agent's own folders are read-only rather than hidden (``readable``:
the kernel reads its configuration and the trust records) and its run folder inside the
hidden Jupyter runtime folder is writable (``exposed``).
"""

from __future__ import annotations

import os
import re
import site
import sys
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.core.user_dirs import user_data_dir
from jupyter_agent.tools import git_stage
from jupyter_agent.tools.bwrap import BASE_MOUNTS, KERNEL_KNOBS
from jupyter_agent.tools.protected import (
    GIT_RUNS,
    STORE_NAME,
    Guard,
    git_dirs,
    user_config_dir,
)
from jupyter_agent.tools.sweep import Entry

GPU_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/dri", "/dev/kfd")
_SOURCED = re.compile(r"""^\s*(?:source|\.)\s+["']?(?:~|\$HOME|\$\{HOME\})/([^\s"';|&]+)""", re.M)


def _real(path: Path) -> Path | None:
    """``path`` with links resolved, when it exists."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return None
    return real if os.path.lexists(real) else None


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def runs_later(env: Mapping[str, str], working_dir: Path | None = None) -> list[Path]:
    """Code that starts outside the sandbox later: the kernel's Python environment (a
    ``.pth`` file there runs at the next start), shell and IPython start-up files and the
    files they source, git's global config (``core.fsmonitor``), program folders on your
    PATH in your home folder (``~/bin``, ``~/.local/bin``), kernel specs, what your desktop
    session starts, and the modules a kernel started in the notebook's folder imports first."""
    home = Path(env.get("HOME") or Path.home())
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    found = [Path(sys.prefix), Path(site.getusersitepackages()), home / ".ipython", home / ".jupyter"]
    starts = [home / n for n in (".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv")]
    found += starts + [home / n for n in (".bash_logout", ".zprofile", ".zlogin", ".xprofile", ".xsessionrc")]
    found += [
        home / ".bash_aliases",
        home / "bin",
        home / ".gitconfig",
        config / "git",
        home / ".local" / "bin",
    ]
    found += [home / ".local" / "share" / "jupyter"]
    found += [config / n for n in ("autostart", "systemd", "environment.d", "fish", "pip")]
    found += [home / ".pip", home / ".condarc", home / ".vimrc", config / "nvim"]
    found += [home / rel for start in starts for rel in _sourced(start)]
    found += _home_programs(env.get("PATH", ""), home)
    return list(dict.fromkeys(found))


def _home_programs(path: str, home: Path) -> list[Path]:
    """Program folders on PATH that a login keeps in the home folder (``~/bin``,
    ``~/.cargo/bin``), not a project's own (``~/work/app/node_modules/.bin``)."""
    found: list[Path] = []
    for entry in path.split(os.pathsep):
        folder = Path(entry)
        if entry and folder.is_absolute() and _within(folder, home) and folder != home:
            first = folder.relative_to(home).parts[0]
            if first.startswith(".") or first == "bin":
                found.append(folder)
    return found


def _sourced(start: Path) -> list[str]:
    """Files under the home folder a start-up file sources (``. ~/.bash_aliases``)."""
    try:
        text = start.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return []
    return [m for m in _SOURCED.findall(text) if ".." not in m.split("/")]


def control_sockets(env: Mapping[str, str]) -> list[Path]:
    """Sockets through which a command could make something outside the sandbox run code
    (systemd/D-Bus, Docker, tmux and screen servers, an X display, an ssh-agent)."""
    uid = os.getuid()
    tmp = Path(tempfile.gettempdir())
    found = [
        Path(f"/run/user/{uid}"),
        Path("/run/dbus"),
        Path("/run/docker.sock"),
        Path("/run/containerd"),
        Path("/run/podman"),
        Path("/run/screen"),
        tmp / ".X11-unix",
        tmp / f"tmux-{uid}",
    ]
    found += sorted(tmp.glob("ssh-*"))
    for var in ("XDG_RUNTIME_DIR", "SSH_AUTH_SOCK"):
        if env.get(var):
            found.append(Path(env[var]))
    if env.get("TMUX_TMPDIR"):
        found.append(Path(env["TMUX_TMPDIR"]) / f"tmux-{uid}")
    return found


def _missing(path: Path) -> Entry | None:
    """(the nearest folder that exists, with links resolved; the names below it that do not)."""
    missing: list[str] = []
    folder = path
    while not os.path.lexists(folder):
        if folder.parent == folder:
            return None
        missing.insert(0, folder.name)
        folder = folder.parent
    real = _real(folder)
    return (str(real), missing) if real is not None and real.is_dir() else None


@dataclass
class Layout:
    """The mounts of one sandbox, in the order bwrap applies them."""

    writable: list[Path]
    pinned: list[Path]
    read_only: list[Path]
    hidden: list[Path]
    absent: list[Entry] = field(default_factory=list)
    """Protected paths that do not exist yet, inside a writable folder: swept afterwards."""
    staged: list[git_stage.StagedGit] = field(default_factory=list)
    """The git folders in a writable folder, each under its staging copy."""
    stage_root: Path | None = None
    exposed: list[Path] = field(default_factory=list)
    """Folders bound writable after the hidden ones (a contained kernel's run folder)."""

    @classmethod
    def plan(
        cls,
        cwd: Path,
        root: Path,
        writable_extra: Iterable[Path],
        guard: Guard,
        env: Mapping[str, str],
        *,
        stage_git: bool = True,
        store: Path | None = None,
        readable: Iterable[Path] = (),
    ) -> Layout:
        """``store``: the session store of the process itself, writable wherever it lies;
        ``readable``: hidden paths it must read (they stay read-only, not hidden)."""
        writable: list[Path] = []
        store_real = _real(store) if store is not None else None
        for folder in (root, Path(tempfile.gettempdir()), *writable_extra):
            real = _real(folder)
            if real is not None and real.is_dir() and real not in writable:
                writable.append(real)
        root_real, cwd_real = _real(root) or root, _real(cwd) or cwd

        def inside(path: Path) -> Path | None:
            if path in writable:  # listed in sandbox.writable: the user's explicit choice
                return None
            return next((w for w in writable if _within(path, w)), None)

        layout = cls(writable, [], [], [])
        if store_real is not None and inside(store_real) is None:
            layout.exposed.append(store_real)  # a store kept elsewhere: bound last, over all else
        _make_hideable(env, writable)
        gits = _top_git_dirs(root_real, inside)
        layout._stage(gits if stage_git else [], user_data_dir(env) / "git-stage")
        layout.read_only += [g for g in gits if g not in {s.real for s in layout.staged}]
        protected = [p for p, _ in guard.concrete(root_real, cwd_real)] + runs_later(env, cwd_real)
        protected.append(user_data_dir(env))  # hidden below; its parents pinned like the rest
        protected += _submodule_gits(root_real)
        if store_real is not None:
            protected = [p for p in protected if _real(p) != store_real]
        for path in [*protected, *gits]:
            layout._protect(path, inside, gits)
        layout.pinned.sort(key=lambda p: len(p.parts))
        shown = {r for r in map(_real, readable) if r is not None}
        for path in [*guard.hidden, *control_sockets(env)]:
            real = _real(path)
            if real is None or real in layout.hidden or real in shown:
                continue
            if any(_within(w, real) for w in [root_real, *writable]):
                continue  # missing, or it would hide the project or the temp folder
            layout.hidden.append(real)
        return layout

    def _stage(self, gits: list[Path], base: Path) -> None:
        """Stage each git folder; one that cannot be staged (no room for the copy, a folder
        it cannot read) stays read-only as a whole: commands then cannot use git there."""
        if not gits:
            return
        try:
            self.stage_root = git_stage.stage_root(base)
        except OSError:
            return
        for gitdir in gits:
            try:
                self.staged += git_stage.stage(gitdir, self.stage_root)
            except OSError:
                self.staged = [s for s in self.staged if not _within(s.real, gitdir)]

    def _protect(self, path: Path, inside: Callable[[Path], Path | None], gits: list[Path]) -> None:
        real = _real(path)
        missing = _missing(path) if real is None else None
        target = real if real is not None else (Path(missing[0], *missing[1]) if missing else None)
        area = inside(target) if target is not None else None
        if target is None or area is None or any(_within(target, g) and target != g for g in gits):
            return  # not writable anyway, or inside a git folder (its stage covers it)
        if missing is not None:
            if path.name != STORE_NAME:
                self.absent.append(missing)
        elif real is not None and real not in gits and real not in self.read_only:
            self.read_only.append(real)
        for parent in reversed(target.parents):
            if area in parent.parents and parent not in self.pinned and parent.exists():
                self.pinned.append(parent)

    def args(self, base: tuple[str, ...] = BASE_MOUNTS) -> list[str]:
        out = [*base, *KERNEL_KNOBS]
        for device in GPU_DEVICES:
            out += ["--dev-bind-try", device, device]
        out += [a for d in sorted(Path("/dev").glob("nvidia[0-9]*")) for a in ("--dev-bind", str(d), str(d))]
        out += _pairs("--bind", self.writable)
        out += _pairs("--bind", self.pinned)
        for staged in self.staged:
            out += staged.args()
        out += _pairs("--ro-bind", self.read_only)
        for path in self.hidden:
            if path.is_dir():  # an empty private folder: a kernel started inside may still write there
                out += ["--tmpfs", str(path)]
            else:
                out += ["--ro-bind", "/dev/null", str(path)]
        out += _pairs("--bind", self.exposed)
        return out


def _top_git_dirs(root: Path, inside: Callable[[Path], Path | None]) -> list[Path]:
    """The project's git folders that commands could write (nested ones are staged with them)."""
    found: list[Path] = []
    for gitdir in git_dirs(root):
        real = _real(gitdir)
        if real is None or not real.is_dir() or inside(real) is None:
            continue
        if not any(_within(real, f) for f in found):
            found = [f for f in found if not _within(f, real)] + [real]
    return found


def _submodule_gits(root: Path) -> list[Path]:
    """Each registered submodule's ``.git`` in the project and what git reads in it, also
    for one not checked out yet: a command must not give it a git folder of its own."""
    found: list[Path] = []
    for gitdir in git_dirs(root)[:1]:
        for rel in git_stage.submodule_paths(gitdir):
            dot_git = root / rel / ".git"
            found += [dot_git, *(dot_git / name for name in sorted(GIT_RUNS))]
    return found


def _make_hideable(env: Mapping[str, str], writable: list[Path]) -> None:
    """jupyter-agent's own folders are hidden; one that does not exist yet where commands
    may write is made (empty) first, or a command could make it and fill it."""
    for folder in (user_config_dir(env), user_data_dir(env)):
        parent = folder.parent.resolve()
        if not os.path.lexists(folder) and any(_within(parent, w) for w in writable):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)


def _pairs(flag: str, paths: Iterable[Path]) -> list[str]:
    return [a for p in paths for a in (flag, str(p), str(p))]
