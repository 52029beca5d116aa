"""Which notebook this kernel belongs to, and whether a frontend has it open.

A Jupyter server tells its kernels (``JPY_SESSION_NAME``, ``__session__``); headless runners
(papermill, ``jupyter nbconvert --execute``, ``jupyter execute``) tell them nothing, but they
are the kernel's parent process and name the notebook on their command line, which Linux
shows in ``/proc``. Sessions of different notebooks must never mix, so the runner's notebook
is the one whose cells hold the cell running now.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from jupyter_agent.tools import kernel_kind

SERVER_VARIABLE = "JPY_SESSION_NAME"
RUNNER_VARIABLE = "JUPYTER_AGENT_RUNNER"
"""What a contained kernel's launcher saw of the process that started it (argv and folder)."""
PAPERMILL_INPUT = "PAPERMILL_INPUT_PATH"
"""The parameter papermill injects with ``--inject-paths`` / ``--inject-input-path``."""


def find_notebook_path(user_ns: Mapping[str, Any], environ: Mapping[str, str]) -> Path | None:
    """``__session__`` (ipykernel ≥ 6.21), else ``JPY_SESSION_NAME``, else VS Code's variable,
    else ``JUPYTER_AGENT_NOTEBOOK``, else papermill's injected input path."""
    served = _served_name(environ)
    for candidate in (
        user_ns.get("__session__") if served else None,
        served,
        user_ns.get("__vsc_ipynb_file__"),
        environ.get("JUPYTER_AGENT_NOTEBOOK"),
        user_ns.get(PAPERMILL_INPUT),
    ):
        if isinstance(candidate, str) and candidate.endswith(".ipynb"):
            return Path(candidate).expanduser().resolve()
    return None


def frontend_attached(user_ns: Mapping[str, Any], environ: Mapping[str, str]) -> bool:
    """True when Jupyter server or VS Code serves this notebook (it may hold unsaved edits)."""
    return bool(_served_name(environ) or user_ns.get("__vsc_ipynb_file__"))


def _served_name(environ: Mapping[str, str]) -> str | None:
    """``JPY_SESSION_NAME`` when a server gave it to this kernel; None when it was only
    inherited (papermill run from a notebook: its kernel's environment holds the variable,
    yet no front end shows the child kernel)."""
    value = environ.get(SERVER_VARIABLE)
    if not value or (not kernel_kind.contained() and _parent_has(SERVER_VARIABLE, value)):
        return None  # a contained kernel's launcher dropped one it only inherited
    return value


def inherited(name: str, value: str) -> bool:
    """``name=value`` is in the parent's environment too (only inherited, not set for us)."""
    return _parent_has(name, value)


def parent_command() -> tuple[list[str], Path] | None:
    """The parent process's command line and folder (Linux), for a contained kernel's launcher."""
    pid = os.getppid()
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
        cwd = Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None
    return [a.decode(errors="surrogateescape") for a in raw.split(b"\0") if a], cwd


@lru_cache(maxsize=8)
def _parent_has(name: str, value: str) -> bool:
    """The parent process's environment holds ``name=value`` (Linux; elsewhere: unknown, no)."""
    try:
        raw = Path(f"/proc/{os.getppid()}/environ").read_bytes()
    except OSError:
        return False
    return f"{name}={value}".encode(errors="surrogateescape") in raw.split(b"\0")


def runner_notebook(executed: Sequence[str]) -> Path | None:
    """The notebook the parent process (a headless runner) executes, or None.

    ``executed``: the raw sources of the cells run so far; the last one (running now) must
    be a code cell of the notebook found, so a runner given several notebooks
    (``jupyter nbconvert --execute *.ipynb``) still names the right one."""
    command = _parent_command()
    if command is None or not executed:
        return None
    argv, cwd = command
    return notebook_in_command(argv, cwd, executed[-1])


def _parent_command() -> tuple[list[str], Path] | None:
    """The runner's command line and folder: the parent process's, or for a contained kernel
    (whose parent is the sandbox's own init) what its launcher saw of its own parent."""
    if kernel_kind.contained():
        try:
            told = json.loads(os.environ.get(RUNNER_VARIABLE, ""))
            return [str(a) for a in told["argv"]], Path(told["cwd"])
        except (ValueError, KeyError, TypeError):
            return None
    return parent_command()


def notebook_in_command(argv: Sequence[str], cwd: Path, cell: str) -> Path | None:
    """The first ``.ipynb`` argument (an existing file; not nbconvert's ``--output``) whose
    code cells include ``cell``: papermill's input comes before its output."""
    wanted = cell.strip()
    for i, arg in enumerate(argv):
        if arg.startswith("-") or not arg.lower().endswith(".ipynb") or (i and argv[i - 1] == "--output"):
            continue
        path = (cwd / arg).resolve()
        if wanted in _code_cells(path):
            return path
    return None


def _code_cells(path: Path) -> set[str]:
    try:
        with path.open(encoding="utf-8") as fh:
            nb = json.load(fh)
        cells = nb.get("cells", []) if isinstance(nb, dict) else []
        sources = (c.get("source", "") for c in cells if isinstance(c, dict) and c.get("cell_type") == "code")
        return {("".join(s) if isinstance(s, list) else str(s)).strip() for s in sources}
    except (OSError, ValueError, AttributeError, TypeError):  # not a notebook we can read
        return set()
