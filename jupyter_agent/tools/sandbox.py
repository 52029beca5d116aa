"""The OS sandbox ``bash`` runs in: bubblewrap (``bwrap``) on Linux.

Rules decide which commands may run; this decides what a running command can reach,
however its paths are spelled. Inside it:

- the whole filesystem is read-only except the project root, the system temp folder and
  ``sandbox.writable``;
- inside those, the protected paths (``tools/protected.py``) and code that runs outside
  the sandbox later (the kernel's Python environment, shell and IPython start-up files)
  are read-only, and every folder above them is a mount point, which cannot be renamed
  away; a protected file the command *creates* (none existed to make read-only) is moved
  aside when it ends (:class:`Created`);
- credential stores and local control sockets (D-Bus, Docker, tmux, ssh-agent …) are
  covered by an empty file or folder;
- the command has its own process and IPC namespaces — no other process shows in
  ``/proc``, so ``/proc/<pid>/root`` leads nowhere — and no capabilities; it dies with
  the agent (``--die-with-parent``), its background jobs when it ends;
- ``sandbox.network: false`` adds a network namespace (only its own loopback).

When no sandbox can start (no bwrap, user namespaces off, not Linux) the command runs as
before and the front ends say so (``start_problem``).
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.tools.protected import Guard

LINUX_ONLY = "the OS sandbox for bash is Linux-only for now"
STARTUP_VARS = ("BASH_ENV", "ENV")
"""Files bash runs before the command: code the rules would never see."""


@dataclass(frozen=True)
class SandboxPolicy:
    """The ``sandbox`` config key, resolved."""

    enabled: bool = True
    network: bool = True
    writable: tuple[Path, ...] = field(default_factory=tuple)


def bwrap_binary(env: Mapping[str, str]) -> str | None:
    """``JUPYTER_AGENT_BWRAP`` (a path, or a name on PATH), else ``bwrap`` on PATH."""
    chosen = env.get("JUPYTER_AGENT_BWRAP")
    if chosen:
        return shutil.which(chosen) or chosen
    return shutil.which("bwrap")


def _shell() -> str:
    return shutil.which("bash") or "/bin/bash"


def _namespaces(network: bool) -> list[str]:
    flags = ["--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-cgroup-try"]
    if not network:
        flags.append("--unshare-net")
    return [*flags, "--cap-drop", "ALL"]


BASE_MOUNTS = (
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--perms",
    "1777",
    "--tmpfs",
    "/dev/shm",
    "--proc",
    "/proc",
)
"""Everything read-only, a private /dev (with a shared-memory folder anyone may use), /proc
of the command's own process namespace."""
OLD_BWRAP_MOUNTS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
"""The same for bubblewrap before 0.5 (no ``--perms``): /dev/shm is then root's only."""

_probed: dict[tuple[str, bool], tuple[str | None, tuple[str, ...]]] = {}
_probe_lock = threading.Lock()


def start_problem(policy: SandboxPolicy, env: Mapping[str, str] | None = None) -> str | None:
    """Why commands run without the sandbox though it is enabled (None: it starts, or it is
    switched off). Each binary is tried once per process, with the flags commands get."""
    if not policy.enabled:
        return None
    if not sys.platform.startswith("linux"):
        return LINUX_ONLY
    env = os.environ if env is None else env
    bwrap = bwrap_binary(env)
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt install bubblewrap)"
    return _tried(bwrap, policy.network)[0]


def _tried(bwrap: str, network: bool) -> tuple[str | None, tuple[str, ...]]:
    """(why it cannot start, the base mounts that work), tried once per binary and network."""
    key = (bwrap, network)
    with _probe_lock:
        if key not in _probed:
            problem = _probe(bwrap, network, BASE_MOUNTS)
            base: tuple[str, ...] = BASE_MOUNTS
            if problem is not None and _probe(bwrap, network, OLD_BWRAP_MOUNTS) is None:
                problem, base = None, OLD_BWRAP_MOUNTS
            _probed[key] = (problem, base)
        return _probed[key]


def _probe(bwrap: str, network: bool, base: tuple[str, ...]) -> str | None:
    argv = [bwrap, *_namespaces(network), *base]
    try:
        done = subprocess.run(
            [*argv, "--", _shell(), "-c", ":"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{bwrap} cannot be run ({exc})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return f"{bwrap} cannot start a sandbox here ({said[-1] if said else f'exit {done.returncode}'})"
    return None


def notice(problem: str) -> str:
    """What the front ends show once per session when commands run unconfined."""
    return (
        f"bash runs without the OS sandbox: {problem}. Only the permission rules limit what "
        "commands do (docs/security.md); set sandbox.enabled to false to run without it "
        "knowingly."
    )


@dataclass
class Spawn:
    """How to start one command: the argv (``bash -c`` inside bwrap, or bare) and its env."""

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    created: Created | None = None


def command(
    text: str,
    cwd: Path,
    root: Path,
    policy: SandboxPolicy,
    guard: Guard,
    env: Mapping[str, str] | None = None,
) -> Spawn:
    """The process to start for the shell command ``text`` in ``cwd``."""
    env = os.environ if env is None else env
    clean = {k: v for k, v in env.items() if k not in STARTUP_VARS}
    clean.update(PAGER="cat", GIT_PAGER="cat")
    inner = [_shell(), "-c", text]
    bwrap = bwrap_binary(env)
    if not policy.enabled or bwrap is None or start_problem(policy, env) is not None:
        return Spawn(inner, clean, sandboxed=False)
    clean.pop("SSH_AUTH_SOCK", None)  # the agent's socket is hidden too
    layout = Layout.plan(cwd, root, policy, guard, env)
    base = _tried(bwrap, policy.network)[1]
    argv = [bwrap, *_namespaces(policy.network), *layout.args(base), "--chdir", str(cwd), "--", *inner]
    return Spawn(argv, clean, sandboxed=True, created=Created(layout.absent))


def _real(path: Path) -> Path | None:
    """``path`` with links resolved, when it exists."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return None
    return real if os.path.lexists(real) else None


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def runs_later(env: Mapping[str, str]) -> list[Path]:
    """Code that starts outside the sandbox later: the kernel's Python environment (a
    ``.pth`` file there runs at the next start), shell and IPython start-up files, git's
    global config (``core.fsmonitor``), programs on your PATH in ``~/.local/bin``, kernel
    specs, and what your desktop session starts."""
    home = Path(env.get("HOME") or Path.home())
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    found = [Path(sys.prefix), Path(site.getusersitepackages()), home / ".ipython", home / ".jupyter"]
    found += [home / n for n in (".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv")]
    found += [home / n for n in (".bash_logout", ".zprofile", ".zlogin", ".xprofile", ".xsessionrc")]
    found += [
        home / ".gitconfig",
        config / "git",
        home / ".local" / "bin",
        home / ".local" / "share" / "jupyter",
    ]
    found += [config / n for n in ("autostart", "systemd", "environment.d", "fish", "pip")]
    found += [home / ".pip", home / ".condarc", home / ".vimrc", config / "nvim"]
    return found


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


GPU_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/dri", "/dev/kfd")


@dataclass
class Layout:
    """The mounts of one sandbox, in the order bwrap applies them."""

    writable: list[Path]
    pinned: list[Path]
    read_only: list[Path]
    hidden: list[Path]
    absent: list[Path]
    """Protected paths that do not exist yet, inside a writable folder."""

    @classmethod
    def plan(
        cls, cwd: Path, root: Path, policy: SandboxPolicy, guard: Guard, env: Mapping[str, str]
    ) -> Layout:
        writable: list[Path] = []
        for folder in (root, Path(tempfile.gettempdir()), *policy.writable):
            real = _real(folder)
            if real is not None and real.is_dir() and real not in writable:
                writable.append(real)
        root_real = _real(root) or root

        def inside(path: Path) -> Path | None:
            if path in writable:  # listed in sandbox.writable: the user's explicit choice
                return None
            return next((w for w in writable if _within(path, w)), None)

        pinned: list[Path] = []
        read_only: list[Path] = []
        absent: list[Path] = []
        protected = [p for p, _ in guard.concrete(root_real, _real(cwd) or cwd)] + runs_later(env)
        for path in protected:
            real = _real(path)
            target: Path | None = real if real is not None else _resolved_parent(path)
            area = inside(target) if target is not None else None
            if target is None or area is None:
                continue
            if real is None:
                if path.name != ".jupyter-agent":
                    absent.append(target)
            elif path.name == ".git" and real.is_dir():
                pinned.append(real)  # git writes its objects; config, hooks and info are read-only
            elif real not in read_only:
                read_only.append(real)
            for parent in reversed(target.parents):
                if area in parent.parents and parent not in pinned and parent.exists():
                    pinned.append(parent)
        hidden: list[Path] = []
        for path in [*guard.hidden, *control_sockets(env)]:
            real = _real(path)
            if real is None or real in hidden or any(_within(w, real) for w in [root_real, *writable]):
                continue  # missing, or it would hide the project or the temp folder
            hidden.append(real)
        return cls(writable, sorted(pinned, key=lambda p: len(p.parts)), read_only, hidden, absent)

    def args(self, base: tuple[str, ...] = BASE_MOUNTS) -> list[str]:
        out = list(base)
        for device in GPU_DEVICES:
            out += ["--dev-bind-try", device, device]
        out += [a for d in sorted(Path("/dev").glob("nvidia[0-9]*")) for a in ("--dev-bind", str(d), str(d))]
        out += _pairs("--bind", self.writable)
        out += _pairs("--bind", self.pinned)
        out += _pairs("--ro-bind", self.read_only)
        for path in self.hidden:
            if path.is_dir():  # an empty private folder: a kernel started inside may still write there
                out += ["--tmpfs", str(path)]
            else:
                out += ["--ro-bind", "/dev/null", str(path)]
        return out


def _pairs(flag: str, paths: Iterable[Path]) -> list[str]:
    return [a for p in paths for a in (flag, str(p), str(p))]


def _resolved_parent(path: Path) -> Path | None:
    """A missing path under its nearest existing folder's real location (``.git/config``
    of a linked ``.git``, or of a ``.git`` not made yet)."""
    missing: list[str] = []
    folder = path
    while not os.path.lexists(folder):
        if folder.parent == folder:
            return None
        missing.insert(0, folder.name)
        folder = folder.parent
    real = _real(folder)
    return real.joinpath(*missing) if real is not None else None


@dataclass
class Created:
    """Protected paths that did not exist before a command: one it made is moved aside
    (``jupyter-agent.json`` → ``jupyter-agent.json.blocked``), never deleted."""

    absent: list[Path] = field(default_factory=list)

    def sweep(self) -> list[str]:
        """Move aside what appeared; one line per path for the command's output."""
        notes: list[str] = []
        for path in self.absent:
            if not os.path.lexists(path) or (path.name == ".git" and path.is_dir()):
                continue  # a new repository (git init) is fine; its config and hooks are not
            aside = path.with_name(path.name + ".blocked")
            n = 1
            while os.path.lexists(aside):
                n += 1
                aside = path.with_name(f"{path.name}.blocked{n}")
            try:
                path.rename(aside)
            except OSError as exc:
                notes.append(
                    f"{path} is protected and was created by the command; moving it aside failed: {exc}"
                )
                continue
            notes.append(
                f"{path} is protected (only write/edit may create it, with the user's approval); "
                f"the command created it, so it was moved to {aside.name}."
            )
        return notes
