"""MCP tools through the whole loop: a real demo server (stdio and HTTP), the scripted model."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from mcp_support import stdio_server
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart

ALLOW = {"permission": {"demo_*": "allow"}}


def tool_parts(runtime: Any, sid: str) -> list[ToolPart]:
    return [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart)]


def sent_tools(request: dict[str, Any]) -> dict[str, Any]:
    return {t["function"]["name"]: t["function"] for t in request["body"].get("tools") or []}


async def test_stdio_text_image_and_error(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("demo_echo", json.dumps({"text": "hi"})),
                ToolCall("demo_chart", "{}"),
                ToolCall("demo_explode", "{}"),
            ]
        ),
        Reply(text="done"),
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, model="openai/gpt-4o", **ALLOW)
    sid = await runtime.prompt("use the demo tools")
    echo, chart, explode = tool_parts(runtime, sid)
    assert echo.state.status == "completed" and echo.state.output == "echo: HI"
    assert chart.state.status == "completed" and chart.state.attachments[0].mime == "image/png"
    assert explode.state.status == "error" and "database is locked" in explode.state.error
    tools = sent_tools(scripted_server.requests[0])
    assert tools["demo_echo"]["parameters"]["properties"]["text"]["type"] == "string"
    assert tools["demo_echo"]["description"].startswith("Echo the text back")
    second = json.dumps(scripted_server.requests[1]["body"]["messages"])
    assert "echo: HI" in second and "database is locked" in second
    # openai/test takes no media in tool results: the image rides in a synthetic user message
    assert "Attached image(s) from tool result" in second and "data:image/png;base64," in second
