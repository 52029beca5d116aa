"""MCP servers beyond the happy path: the older SSE transport, servers dying mid-call or between prompts."""

from __future__ import annotations

import json
import os
import re
import signal
import threading
import time
from pathlib import Path
from typing import Any

from mcp_support import stdio_server
from scripted_server import Reply, ToolCall
from test_mcp_tools import sent_tools, tool_parts

from jupyter_agent.mcp.manager import CHECK_AFTER

WEB = {"permission": {"web_*": "allow"}}


async def test_sse_only_server_is_reached(mcp_runtime: Any, scripted_server: Any, http_server: Any) -> None:
    server = http_server("sse")
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("web_echo", json.dumps({"text": "over sse"})),
                ToolCall("web_chart", "{}"),
                ToolCall("web_explode", "{}"),
            ]
        ),
        Reply(text="done"),
    )
    runtime = mcp_runtime(mcp={"web": {"type": "remote", "url": server.url}}, **WEB)
    sid = await runtime.prompt("use the old server")
    echo, chart, explode = tool_parts(runtime, sid)
    assert echo.state.status == "completed", echo.state.error
    assert echo.state.output == "echo: OVER SSE"
    assert chart.state.status == "completed" and chart.state.attachments[0].mime == "image/png"
    assert explode.state.status == "error" and "database is locked" in explode.state.error
    assert runtime.notices == []


async def test_http_server_killed_mid_call(
    mcp_runtime: Any, scripted_server: Any, http_server: Any, tmp_path: Path
) -> None:
    pid_file = tmp_path / "server.pid"
    server = http_server(DEMO_PID_FILE=str(pid_file))
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("web_slow", json.dumps({"seconds": 60}))]),
        Reply(text="the server died"),
        Reply(text="second prompt"),
    )
    runtime = mcp_runtime(mcp={"web": {"type": "remote", "url": server.url}}, **WEB)

    def killer() -> None:
        deadline = time.time() + 60
        while not pid_file.exists() and time.time() < deadline:
            time.sleep(0.05)
        server.kill()

    threading.Thread(target=killer, daemon=True).start()
    started = time.time()
    sid = await runtime.prompt("sleep")
    assert time.time() - started < 40
    (slow,) = tool_parts(runtime, sid)
    assert slow.state.status == "error", slow.state.error
    assert "MCP server 'web' stopped during a call to 'slow'" in slow.state.error
    assert "Traceback" not in slow.state.error and "\n" not in slow.state.error.strip()
    assert "the server died" in json.dumps(runtime.store.messages(sid)[-1].model_dump())
    assert runtime.services.mcp.servers["web"].state == "failed"
    await runtime.prompt("again", session_id=sid)
    assert "web_slow" not in sent_tools(scripted_server.requests[-1])


async def test_servers_dying_between_prompts(
    mcp_runtime: Any, scripted_server: Any, http_server: Any
) -> None:
    web = http_server()
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_whoami", "{}"), ToolCall("web_echo", json.dumps({"text": "a"}))]),
        Reply(text="first"),
        Reply(text="second, without the dead servers' tools"),
        Reply(text="third"),
    )
    alive = http_server()
    servers = {
        "demo": stdio_server(),
        "web": {"type": "remote", "url": web.url},
        "alive": {"type": "remote", "url": alive.url},
        "local": stdio_server(),
    }
    runtime = mcp_runtime(mcp=servers, permission={"demo_*": "allow", "web_*": "allow"})
    sid = await runtime.prompt("who")
    whoami, _ = tool_parts(runtime, sid)
    os.kill(int(re.search(r"pid=(\d+)", whoami.state.output).group(1)), signal.SIGKILL)  # type: ignore[union-attr]
    web.kill()
    time.sleep(CHECK_AFTER + 0.5)
    runtime.notices.clear()
    await runtime.prompt("again", session_id=sid)
    tools = sent_tools(scripted_server.requests[-1])
    assert not any(name.startswith(("demo_", "web_")) for name in tools), sorted(tools)
    assert "alive_echo" in tools and "local_echo" in tools  # idle, not dead: still offered
    demo = next(n for n in runtime.notices if "MCP server 'demo'" in n)
    assert "stopped since the last call" in demo and "demo server starting" in demo  # its stderr
    web_notice = next(n for n in runtime.notices if "MCP server 'web'" in n)
    assert "stopped" in web_notice and "failed to start" not in web_notice, web_notice
    assert "second, without" in json.dumps(runtime.store.messages(sid)[-1].model_dump())
    assert not any("'alive'" in n or "'local'" in n for n in runtime.notices), runtime.notices
    runtime.notices.clear()
    await runtime.prompt("third", session_id=sid)
    assert runtime.notices == []  # reported once
