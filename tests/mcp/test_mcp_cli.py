"""``jupyter-agent mcp list`` and ``jupyter-agent run`` with MCP servers, as a user runs them."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from mcp_support import stdio_server
from scripted_server import Reply, ToolCall

SECRET = "tok-0123456789-abcdef"
LEAK = "import os, sys; print('token is', os.environ['DEMO_TOKEN'], file=sys.stderr); sys.exit(1)"


def _write(tmp_path: Path, config: dict[str, Any]) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))


def _gone(pid: int, within: float = 20.0) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_mcp_list_shows_state_tools_and_failures_redacted(tmp_path: Path) -> None:
    leaky = {
        "type": "local",
        "command": [sys.executable, "-c", LEAK],
        "environment": {"DEMO_TOKEN": "{env:MY_DEMO_VALUE}"},
    }
    _write(
        tmp_path,
        {"mcp": {"demo": stdio_server(), "leaky": leaky, "off": {**stdio_server(), "enabled": False}}},
    )
    result = run_cli(["mcp", "list"], tmp_path, MY_DEMO_VALUE=SECRET)
    assert result.returncode == 1, result.stderr  # a server failed: scripts can check a config
    out = result.stdout
    assert "demo  [connected]" in out and "  - demo_echo: Echo the text back, upper-cased." in out
    assert "  - demo_chart: A tiny red PNG." in out
    assert "leaky  [failed]" in out and "token is [REDACTED:MY_DEMO_VALUE]" in out
    assert "off  [disabled]" in out
    assert SECRET not in out + result.stderr and "Traceback" not in result.stderr


def test_mcp_list_without_servers_explains(tmp_path: Path) -> None:
    result = run_cli(["mcp", "list"], tmp_path)
    assert result.returncode == 0 and 'Add them under "mcp" in jupyter-agent.json' in result.stdout


def test_bad_mcp_config_is_one_line(tmp_path: Path) -> None:
    _write(tmp_path, {"mcp": {"my server": {"type": "local", "command": ["x"]}}})
    result = run_cli(["mcp", "list"], tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "jupyter-agent.json" in result.stderr and "mcp" in result.stderr


def test_run_uses_mcp_tools_and_stops_the_servers(tmp_path: Path, scripted_server: Any) -> None:
    started = tmp_path / "started.txt"
    _write(
        tmp_path,
        {"mcp": {"demo": stdio_server(DEMO_STARTED_FILE=str(started))}, "permission": {"demo_*": "allow"}},
    )
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "from cli"}))]), Reply(text="echoed")
    )
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "echo it"]
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[demo_echo] completed" in result.stderr and "echoed" in result.stdout
    assert "echo: FROM CLI" in json.dumps(scripted_server.requests[1]["body"]["messages"])
    (pid,) = [int(p) for p in started.read_text().split()]
    assert _gone(pid, within=5), "the MCP server outlived the CLI"


def test_run_refuses_an_unapproved_mcp_tool_headless(tmp_path: Path, scripted_server: Any) -> None:
    _write(tmp_path, {"mcp": {"demo": stdio_server()}})
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "x"}))]), Reply(text="ok")
    )
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "echo it"]
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "[demo_echo] error" in result.stderr and '{"permission": {"demo_echo": "allow"}}' in result.stderr


def test_a_server_that_fails_to_start_is_told_before_the_request(tmp_path: Path) -> None:
    """User sees: "note: MCP server 'gone' … failed to start …" before the run's own error."""
    _write(tmp_path, {"mcp": {"gone": {"type": "local", "command": ["no-such-mcp-command-xyz"]}}})
    result = run_cli(["run", "--model", "openai/test", "--api-base", "http://127.0.0.1:9", "hi"], tmp_path)
    assert result.returncode == 1, result.stderr
    note = result.stderr.index("MCP server 'gone'")
    assert note < result.stderr.index("error: Could not reach http://127.0.0.1:9"), result.stderr
