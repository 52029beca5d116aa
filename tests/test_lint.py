"""The code base stays ruff- and mypy-clean (the dev tools come with the test install).

Under CI (``CI`` set) a missing tool fails the test: a skipped lint is an unchecked one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "jupyter_agent", "tests", "benchmarks"],
        ["ruff", "format", "--check", "jupyter_agent", "tests", "benchmarks"],
        ["mypy", "jupyter_agent"],
    ],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_clean(command: list[str]) -> None:
    tool = shutil.which(command[0], path=str(Path(sys.executable).parent))
    if tool is None:
        message = f"{command[0]} is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    result = subprocess.run([tool, *command[1:]], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
