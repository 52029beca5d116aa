"""Run the ``jupyter-agent`` command as a user would: a subprocess with a test API key."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_cli(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test", **env}
    return subprocess.run(
        [sys.executable, "-m", "jupyter_agent.cli", *args],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )
