"""An MCP tool's image goes inline in the tool result for a provider that takes media there.

(``test_mcp_tools`` covers the other path: a provider that does not, where the image
rides in a synthetic user message.) The provider here is the scripted Anthropic endpoint,
which validates requests as Anthropic does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import MODEL, AnthropicServer, AReply, AToolUse
from mcp_support import stdio_server

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture
def claude() -> Iterator[AnthropicServer]:
    server = AnthropicServer().start()
    yield server
    server.stop()


async def test_image_inline_in_the_tool_result(
    claude: AnthropicServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-ant-test")
    flags = {
        "model": MODEL,
        "api_base": claude.base_url,
        "mcp": {"demo": stdio_server()},
        "permission": {"demo_*": "allow"},
    }
    config = load_config(tmp_path, flags, global_dir=tmp_path / "no-global")
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(tmp_path),
        project_root=tmp_path,
        working_dir=tmp_path,
        generate_titles=False,
    )
    claude.queue(AReply(tool_uses=[AToolUse("demo_chart", {})]), AReply(text="A red square."))
    try:
        await runtime.prompt("draw")
    finally:
        manager: Any = runtime.services.mcp
        if manager is not None:
            manager.close()
        runtime.store.close()
    last = claude.requests[1]["body"]["messages"][-1]
    (result,) = [b for b in last["content"] if b["type"] == "tool_result"]
    kinds = [b["type"] for b in result["content"]]
    assert "image" in kinds, result
    (image,) = [b for b in result["content"] if b["type"] == "image"]
    assert image["source"]["media_type"] == "image/png"
    assert "Attached image(s) from tool result" not in json.dumps(claude.requests[1]["body"])
