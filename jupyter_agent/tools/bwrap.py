"""bubblewrap itself: found once, in a place no command can write, and tried once.

The sandbox is only as good as the program that builds it. Looked up on ``PATH``, a
``bwrap`` a command wrote into a project folder on ``PATH`` (direnv's ``PATH_add bin``,
``node_modules/.bin``) would run the next command unconfined. So it is taken from the
system's program folders only, or from ``JUPYTER_AGENT_BWRAP`` (an absolute path), resolved
once per process, and ``sandbox.command`` refuses one that lies where commands may write.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

BWRAP_VAR = "JUPYTER_AGENT_BWRAP"
SYSTEM_BIN = (
    "/usr/bin",
    "/bin",
    "/usr/local/bin",
    "/usr/sbin",
    "/sbin",
    "/run/current-system/sw/bin",  # NixOS
    "/nix/var/nix/profiles/default/bin",
)
"""Where bwrap and bash are looked for: never a folder a user's PATH adds."""

NAMESPACES = ("--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try")
"""Own processes (``/proc`` shows only the command's), IPC and host name; no capabilities
(``--cap-drop ALL``, also when the kernel runs as root)."""
KERNEL_KNOBS = (
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
    "--ro-bind-try",
    "/sys",
    "/sys",
)
"""What root could turn machine-wide without a capability (``core_pattern`` runs a program
as root at the next crash): read-only."""
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

_lock = threading.Lock()
_found: dict[str | None, tuple[str | None, str | None]] = {}
_probed: dict[tuple[str, bool], tuple[str | None, tuple[str, ...]]] = {}


def system_program(name: str) -> str | None:
    """``name`` from the system's program folders (links resolved), else None."""
    for folder in SYSTEM_BIN:
        candidate = Path(folder) / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate.resolve())
    return None


def shell() -> str:
    return system_program("bash") or "/bin/bash"


def find(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """(the bwrap to use, why there is none), decided once per value of ``JUPYTER_AGENT_BWRAP``."""
    chosen = env.get(BWRAP_VAR) or None
    with _lock:
        if chosen not in _found:
            _found[chosen] = _locate(chosen)
        return _found[chosen]


def _locate(chosen: str | None) -> tuple[str | None, str | None]:
    if chosen is None:
        found = system_program("bwrap")
        if found is None:
            return None, "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt install bubblewrap)"
        return found, None
    path = Path(chosen).expanduser()
    if not path.is_absolute():
        return (
            None,
            f"{BWRAP_VAR} must be an absolute path (it is {chosen!r}); a name is not looked up on PATH",
        )
    return os.path.normpath(path), None


def writable_home(bwrap: str, writable: list[Path]) -> Path | None:
    """The folder commands may write that holds ``bwrap`` or a link on the way to it (either
    could be swapped), else None."""
    given = Path(bwrap)
    for entry in (given.resolve(), given, *given.parents):  # each name on the way lies in a folder
        folder = entry.parent.resolve()
        found = next((w for w in writable if w == folder or w in folder.parents), None)
        if found is not None:
            return found
    return None


def tried(bwrap: str, network: bool) -> tuple[str | None, tuple[str, ...]]:
    """(why it cannot start, the base mounts that work), tried once per binary and network."""
    key = (bwrap, network)
    with _lock:
        if key not in _probed:
            problem = _probe(bwrap, network, BASE_MOUNTS)
            base: tuple[str, ...] = BASE_MOUNTS
            if problem is not None and _probe(bwrap, network, OLD_BWRAP_MOUNTS) is None:
                problem, base = None, OLD_BWRAP_MOUNTS
            _probed[key] = (problem, base)
        return _probed[key]


def namespaces(network: bool) -> list[str]:
    return [*NAMESPACES, *([] if network else ["--unshare-net"]), "--cap-drop", "ALL"]


def _probe(bwrap: str, network: bool, base: tuple[str, ...]) -> str | None:
    argv = [bwrap, *namespaces(network), *base, *KERNEL_KNOBS]
    try:
        done = subprocess.run(
            [*argv, "--", shell(), "-c", ":"],
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
