"""The CLI explains itself: --version, a help line per subcommand, JSON for scripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from scripted_server import Reply

from jupyter_agent import __version__
from jupyter_agent.cli import parser


def _help(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        parser().parse_args([*argv, "--help"])
    return capsys.readouterr().out


def test_version(tmp_path: Path) -> None:
    result = run_cli(["--version"], tmp_path)
    assert result.returncode == 0
    assert result.stdout.strip() == f"jupyter-agent {__version__}"


def test_every_subcommand_has_a_help_line(capsys: pytest.CaptureFixture[str]) -> None:
    top = _help(capsys=capsys)
    for command in ("run", "compact", "sessions"):
        line = next(line for line in top.splitlines() if line.strip().startswith(command))
        assert len(line.split()) > 1, line  # a description after the name
    sessions = _help("sessions", capsys=capsys)
    for action in ("list", "show", "rename", "delete", "fork", "export", "import", "revert", "unrevert"):
        line = next(line for line in sessions.splitlines() if line.strip().startswith(action + " "))
        assert len(line.split()) > 1, line


def test_run_help_explains_model_and_agent(capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(_help("run", capsys=capsys).split())
    assert "litellm model id" in text and "JUPYTER_AGENT_MODEL" in text
    assert "plan (read-only" in text and "explore" in text


def test_sessions_list_and_show_as_json(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="hello from json"))
    run = run_cli(["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"], tmp_path)
    assert run.returncode == 0, run.stderr
    listing = run_cli(["sessions", "list", "--json"], tmp_path)
    assert listing.returncode == 0, listing.stderr
    sessions = json.loads(listing.stdout)
    assert len(sessions) == 1 and sessions[0]["id"].startswith("ses_")
    shown = run_cli(["sessions", "show", sessions[0]["id"], "--json"], tmp_path)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["session"]["id"] == sessions[0]["id"]
    texts = [p.get("text") for m in data["messages"] for p in m["parts"]]
    assert "hello from json" in texts and "hi" in texts
    (tmp_path / "elsewhere").mkdir()
    empty = run_cli(["sessions", "list", "--json"], tmp_path / "elsewhere")
    assert empty.returncode == 0 and json.loads(empty.stdout) == []
