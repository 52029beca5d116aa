"""The ``mcp`` config key: OpenCode's shape, ``{env:NAME}`` references, what is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall
from test_mcp_tools import tool_parts

from jupyter_agent.config import ConfigError, load_config
from jupyter_agent.mcp.config import shown


def test_shown_keeps_references_and_hides_literals() -> None:
    assert shown("{env:TOKEN}") == "{env:TOKEN}"
    assert shown("Bearer {env:TOKEN}") == "Bearer {env:TOKEN}"
    assert shown("Bearer abcdefghijkl") == "***"
    assert shown("sk-literal-secret {env:X}") == "***"


def test_opencode_shape_and_clear_errors(tmp_path: Path) -> None:
    ok = {
        "docs": {
            "type": "local",
            "command": ["uvx", "docs-mcp"],
            "environment": {"K": "{env:K}"},
            "timeout": 5000,
        },
        "tickets": {"type": "remote", "url": "https://example.invalid/mcp", "enabled": False},
    }
    config = load_config(tmp_path, {"mcp": ok}, global_dir=tmp_path / "none")
    assert config.mcp["docs"].startup_timeout() == 5.0 and config.mcp["tickets"].enabled is False
    for bad, words in [
        ({"x": {"type": "remote", "url": "ftp://host"}}, "http"),
        ({"x": {"type": "local", "command": []}}, "command"),
        ({"x": {"type": "sse", "url": "http://h"}}, "type"),
        ({"bad name": {"type": "local", "command": ["a"]}}, "mcp"),
        ({"x": {"type": "local", "command": ["a"], "headers": {}}}, "headers"),
    ]:
        with pytest.raises(ConfigError, match=words):
            load_config(tmp_path, {"mcp": bad}, global_dir=tmp_path / "none")


async def test_literal_header_token_is_redacted(
    mcp_runtime: Any, scripted_server: Any, http_server: Any
) -> None:
    token = "literal-token-0123456789"
    server = http_server(DEMO_REQUIRE_TOKEN=token, DEMO_TOKEN=token)
    scripted_server.queue(Reply(tool_calls=[ToolCall("web_whoami", "{}")]), Reply(text="done"))
    remote = {"type": "remote", "url": server.url, "headers": {"Authorization": f"Bearer {token}"}}
    runtime = mcp_runtime(mcp={"web": remote}, permission={"web_*": "allow"})
    sid = await runtime.prompt("who")
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and token not in part.state.output
    assert "[REDACTED:mcp.web.headers.Authorization]" in part.state.output
    assert token not in json.dumps(scripted_server.requests[1]["body"])
    assert runtime.config.redacted()["mcp"]["web"]["headers"] == {"Authorization": "***"}
