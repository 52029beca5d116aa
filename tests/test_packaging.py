"""The wheel ships the prebuilt side panel, so `pip install jupyter-agent` needs no node."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARE = "jupyter_agent-0.1.0.data/data/share/jupyter/labextensions/jupyter-agent"


@pytest.mark.timeout(600)
def test_wheel_contains_the_labextension(tmp_path: Path) -> None:
    # no build isolation: the build tools come from the dev extras; the panel is built
    # already (scripts/install.sh), so the hook does not run npm again
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            ".",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("jupyter_agent-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert f"{SHARE}/package.json" in names
    assert f"{SHARE}/install.json" in names
    assert any(n.startswith(f"{SHARE}/static/remoteEntry.") for n in names)
    meta = json.loads(zipfile.ZipFile(wheel).read(f"{SHARE}/package.json"))
    assert meta["name"] == "jupyter-agent" and meta["jupyterlab"]["_build"]["load"].startswith("static/")
