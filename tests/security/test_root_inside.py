"""Issue 37.4: root is not special inside the sandbox.

The reproduction on main, with the kernel running as root (a Docker image, a JupyterHub
single-user server as root): a sandboxed command wrote ``/proc/sys/kernel/hostname`` and
opened ``/proc/sys/kernel/core_pattern`` (which runs a program as root at the next crash of
any process) and ``/proc/sys/vm/drop_caches`` for writing. Root needs no capability for
those: the files' owner is enough. Now commands have their own host name (UTS namespace),
no capabilities, and ``/proc/sys``, ``/sys`` and ``/proc/sysrq-trigger`` are read-only. The
same checks run as an unprivileged user in ``test_unprivileged.py``.

Nothing here writes: a file is only opened for appending (``exec 3>>``), which changes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hostile import run_bash

from jupyter_agent.tools import sandbox

pytestmark = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)
KNOBS = (
    "/proc/sys/kernel/core_pattern",
    "/proc/sys/vm/drop_caches",
    "/proc/sys/kernel/hostname",
    "/proc/sysrq-trigger",
)
PROBE = (
    "; ".join(f"(exec 3>>{k}) 2>/dev/null && echo OPENED {k}" for k in KNOBS)
    + "; touch /sys/kernel/probe 2>/dev/null && echo WROTE /sys"
    + "; echo uts=$(readlink /proc/self/ns/uts)"
    + "; grep -E '^Cap(Inh|Prm|Eff|Amb)' /proc/self/status"
)
"""Shared with ``test_unprivileged.py``: what a command may open for writing, its host-name
namespace and its capabilities."""


def check_probe(output: str) -> None:
    assert "OPENED" not in output and "WROTE" not in output, output
    assert f"uts={os.readlink('/proc/self/ns/uts')}" not in output, output  # its own host name
    caps = [line.split()[1] for line in output.splitlines() if line.startswith("Cap")]
    assert caps == ["0000000000000000"] * 4, output


async def test_root_is_not_special_inside(make_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    part = await run_bash(
        make_runtime(permission={"bash": "allow", "external_directory": "allow"}), scripted_model, PROBE
    )
    assert part.state.status == "completed", part.state
    check_probe(part.state.output)
