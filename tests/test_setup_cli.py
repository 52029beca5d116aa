"""`jupyter-agent setup`: the side panel's setup from a terminal (issue 40 item 2).

The key read from standard input, tested with a one-token request, saved in the user's own
folder (mode 0600), never printed; then `jupyter-agent run` in a project uses what was saved.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_runner import TIMEOUT
from scripted_server import Reply

KEY = "sk-from-a-password-manager-31337"


def _cli(args: list[str], cwd: Path, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("JUPYTER_AGENT_") and not k.endswith("_API_KEY")
    }
    env.update(XDG_CONFIG_HOME=str(home), JUPYTER_AGENT_NETGUARD="1")
    return subprocess.run(
        [sys.executable, "-m", "jupyter_agent.cli", *args],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=TIMEOUT,
    )  # fmt: skip


def test_setup_then_run_uses_the_saved_model_and_key(tmp_path: Path, scripted_server: Any) -> None:
    home, project = tmp_path / "config", tmp_path / "project"
    project.mkdir()
    scripted_server.title_reply = Reply(text="OK")
    server = ["setup", "--provider", "openai-compatible", "--model", "m", "--key-stdin"]
    bad = _cli([*server, "--api-base", "localhost:8000"], project, home, KEY + "\n")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "not a server address" in bad.stderr and not (home / "jupyter-agent").exists()
    args = [
        "setup",
        "--provider",
        "openai-compatible",
        "--api-base",
        scripted_server.base_url,
        "--model",
        "test",
    ]
    done = _cli([*args, "--key-stdin"], project, home, KEY + "\n")
    assert done.returncode == 0, done.stderr
    assert "Connected: openai/test answered “OK”." in done.stdout
    assert KEY not in done.stdout + done.stderr
    folder = home / "jupyter-agent"
    assert json.loads((folder / "config.json").read_text()) == {
        "model": "openai/test",
        "api_base": scripted_server.base_url,
    }
    assert stat.S_IMODE((folder / "keys.json").stat().st_mode) == 0o600
    assert list(project.iterdir()) == []  # nothing in the project
    scripted_server.queue(Reply(text="Answered with the saved settings."))
    run = _cli(["run", "hello"], project, home)
    assert run.returncode == 0, run.stderr
    assert "Answered with the saved settings." in run.stdout
    sent = {k.lower(): v for k, v in scripted_server.requests[-1]["headers"].items()}
    assert sent["authorization"] == f"Bearer {KEY}"
