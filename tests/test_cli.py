"""``jupyter-agent run`` as a user runs it: a subprocess, real HTTP, a real store."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from scripted_server import ErrorReply, Reply, ToolCall


def test_run_streams_and_stores(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo from-bash"}))]),
        Reply(text="All done: from-bash."),
    )
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "say hi"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "All done: from-bash." in result.stdout
    assert "[bash] completed" in result.stderr
    db = tmp_path / ".jupyter-agent" / "sessions.db"
    rows = sqlite3.connect(db).execute("SELECT COUNT(*) FROM message").fetchone()[0]
    assert rows == 3  # user, tool step, answer
    # --continue appends to the same session
    scripted_server.queue(Reply(text="second"))
    again = run_cli(
        ["run", "--continue", "--model", "openai/test", "--api-base", scripted_server.base_url, "more"],
        tmp_path,
    )
    assert again.returncode == 0, again.stderr
    assert sqlite3.connect(db).execute("SELECT COUNT(DISTINCT session_id) FROM message").fetchone()[0] == 1
    listing = run_cli(["sessions", "list"], tmp_path)
    assert listing.returncode == 0 and "ses_" in listing.stdout


def test_run_json_events(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="hello json"))
    result = run_cli(
        ["run", "--json", "--model", "openai/test", "--api-base", scripted_server.base_url, "x"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    deltas = "".join(
        e.get("delta") or "" for e in events if e["type"] == "part.updated" and e["part"]["type"] == "text"
    )
    assert deltas == "hello json"


def test_run_without_model_explains(tmp_path: Path) -> None:
    result = run_cli(["run", "hi"], tmp_path)
    assert result.returncode == 2
    assert "JUPYTER_AGENT_MODEL" in result.stderr and "Traceback" not in result.stderr


def test_run_reports_provider_failure(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(ErrorReply(status=401, body="invalid api key"))
    result = run_cli(["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "x"], tmp_path)
    assert result.returncode == 1
    assert "OPENAI_API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_missing_provider_key_is_explained(tmp_path: Path) -> None:
    env_free = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, "-m", "jupyter_agent.cli", "run", "--model", "anthropic/claude-sonnet-4-5", "hi"],
        cwd=tmp_path,
        env=env_free,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert "ANTHROPIC_API_KEY" in result.stderr and "Traceback" not in result.stderr


def test_run_recovers_from_a_broken_call_and_a_full_window_mid_turn(
    tmp_path: Path, scripted_server: Any
) -> None:
    """A call whose JSON does not parse, then "context too long" after a tool result: the model
    is told what was wrong, the tool work is summarised, the run finishes and exits 0
    (OpenCode's `run` exits 1 on the overflow; docs/spec.md, "Differences from OpenCode")."""
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", '{"command": "echo res')]),
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": "notes.txt"}))]),
        ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length."),
        Reply(text="## Goal\n- read the notes"),
        Reply(text="Done: result-7f3a."),
    )
    (tmp_path / "notes.txt").write_text("result-7f3a\n")
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "read the notes"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "Done: result-7f3a." in result.stdout and "Traceback" not in result.stderr
    bodies = [r["body"]["messages"] for r in scripted_server.requests]
    broken = next(m for m in bodies[1] if m["role"] == "assistant")["tool_calls"][0]["function"]
    assert broken == {"name": "bash", "arguments": json.dumps({"raw": '{"command": "echo res'})}
    told = next(m for m in bodies[1] if m["role"] == "tool")["content"]
    assert told.startswith("The arguments provided to the tool are invalid: the JSON does not parse: ")
    assert "result-7f3a" in json.dumps(bodies[3])  # the summary input holds the tool's work
    assert bodies[4][-1]["content"].startswith("Continue if you have next steps")
