"""Run the ``jupyter-agent`` command as a user would: a subprocess with a test API key."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

TIMEOUT = 120


def run_cli(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """A command that does not end in time fails with every thread's stack (faulthandler on SIGABRT)."""
    full = {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test", "PYTHONFAULTHANDLER": "1", **env}
    cmd = [sys.executable, "-m", "jupyter_agent.cli", *args]
    with subprocess.Popen(
        cmd, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as proc:
        try:
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            out, err = proc.communicate(timeout=30)
            raise AssertionError(
                f"{cmd[3:]} did not end within {TIMEOUT} s; stderr:\n{err[-6000:]}"
            ) from None
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
