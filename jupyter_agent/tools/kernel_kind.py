"""Which kind of kernel this process is: contained (inside the sandbox as a whole) or ordinary.

A contained kernel is started by ``python -m jupyter_agent.contained`` (the "Python 3
(contained)" kernelspec) inside bubblewrap, with the same layout as a ``bash`` command.
Everything it runs is inside that boundary, so ``bash`` runs its commands directly (a
sandbox cannot be nested in one), the ``python`` tool needs no guard, and the front ends
say "contained".

The answer is decided from facts the code in the kernel cannot change afterwards: the
environment the process was started with (``/proc/self/environ``, not ``os.environ``,
which any cell may edit) names it, and the root of the file system is a read-only mount.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Literal

CONTAINED_VAR = "JUPYTER_AGENT_CONTAINED"
KernelKind = Literal["contained", "ordinary"]
SWITCH = (
    'switch this notebook to the "Python 3 (contained)" kernel (Kernel → Change Kernel; '
    "install it once with `jupyter-agent kernel install --contained`)"
)
"""How to move to a contained kernel, in the words the refusals and the docs use."""


@functools.cache
def contained() -> bool:
    """Whether this process was started as a contained kernel (decided once)."""
    return _started_contained(Path("/proc/self/environ")) and _root_read_only(Path("/proc/self/mountinfo"))


def kind() -> KernelKind:
    return "contained" if contained() else "ordinary"


def _started_contained(environ: Path) -> bool:
    try:
        entries = environ.read_bytes().split(b"\0")
    except OSError:
        return False
    return f"{CONTAINED_VAR}=1".encode() in entries


def _root_read_only(mountinfo: Path) -> bool:
    """The topmost mount at ``/`` is read-only (``--ro-bind / /``)."""
    try:
        lines = mountinfo.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    rows = (line.split() for line in lines)
    options = [fields[5].split(",") for fields in rows if len(fields) > 5 and fields[4] == "/"]
    return bool(options) and "ro" in options[-1]


def refusal(tool: str, required: bool, in_kernel: bool, admin_file: str | None) -> str | None:
    """The one line a tool that runs code gets in an ordinary kernel when the administrator
    requires a contained one (``require_contained_kernel``), else None. Outside a kernel
    (``jupyter-agent run``) there is no kernel to switch: ``bash`` is sandboxed as always."""
    if not required or not in_kernel or contained():
        return None
    where = f" ({admin_file})" if admin_file else ""
    return (
        f"The administrator's settings{where} require a contained kernel for {tool}, and this "
        f"kernel is not contained: {SWITCH}. Tell the user; do not retry."
    )
