"""A headless ``jupyter-agent run`` in the background, to kill or to race against."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def start_run(server: Any, cwd: Path, *args: str, **popen: Any) -> subprocess.Popen[Any]:
    """``jupyter-agent run`` against ``server``; ``popen`` overrides (``text=False``,
    ``preexec_fn``, ``prefix`` = the argv before ``run``, e.g. a ``-c`` wrapper)."""
    prefix = popen.pop("prefix", [sys.executable, "-m", "jupyter_agent.cli"])
    options: dict[str, Any] = {
        "cwd": cwd,
        "env": {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test"},
        "stdout": subprocess.PIPE,
        "stderr": subprocess.PIPE,
        "text": True,
        **popen,
    }
    cmd = [*prefix, "run", "--model", "openai/test", "--api-base", server.base_url]
    return subprocess.Popen([*cmd, *args], **options)


def wait_for(check: Callable[[], bool], timeout: float = 120, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False
