"""Misbehaving MCP servers: each is reported in one line (or worked around) and the run goes on."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from mcp_support import RAW, odd_server, stdio_server
from scripted_server import Reply, ToolCall
from test_mcp_tools import ALLOW, sent_tools, tool_parts

from jupyter_agent.tools.registry import register_kernel_tools


def _gone(pid: int, within: float = 15.0) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


async def test_server_hanging_on_initialize_times_out(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="answered without the stuck server"))
    runtime = mcp_runtime(mcp={"stuck": odd_server("hang", timeout=3), "demo": stdio_server()}, **ALLOW)
    started = time.time()
    sid = await runtime.prompt("hi")
    assert time.time() - started < 45  # not the default 30 s + a hung call
    (notice,) = [n for n in runtime.notices if "'stuck'" in n]
    assert "did not start within 3 s" in notice and "hanging on purpose" in notice
    assert "demo_echo" in sent_tools(scripted_server.requests[0])
    assert runtime.store.messages(sid)[-1].info.error is None
    pid = int(re.search(r"pid (\d+)", notice).group(1))  # type: ignore[union-attr]
    assert _gone(pid), "the hung server process was left running"


async def test_timeout_in_milliseconds_like_opencode(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="ok"))
    runtime = mcp_runtime(mcp={"stuck": odd_server("hang", timeout=2500)})
    await runtime.prompt("hi")
    assert any("did not start within 2.5 s" in n for n in runtime.notices), runtime.notices


async def test_garbage_on_stdout_is_skipped(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(tool_calls=[ToolCall("odd_noisy", "{}")]), Reply(text="done"))
    runtime = mcp_runtime(mcp={"odd": odd_server("garbage")}, permission={"odd_*": "allow"})
    sid = await runtime.prompt("make noise")
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and part.state.output == "quiet now"
    assert runtime.notices == []


async def test_huge_output_is_truncated(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(tool_calls=[ToolCall("odd_dump", "{}")]), Reply(text="done"))
    runtime = mcp_runtime(mcp={"odd": odd_server("huge")}, permission={"odd_*": "allow"})
    sid = await runtime.prompt("dump")
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and part.state.metadata["truncated"] is True
    assert len(part.state.output) < 60_000
    assert Path(part.state.metadata["output_path"]).stat().st_size == 3_200_000
    assert len(json.dumps(scripted_server.requests[1]["body"])) < 100_000


async def test_invalid_input_schema_leaves_that_tool_out(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("odd_fine", json.dumps({"q": "x"}))]), Reply(text="done")
    )
    runtime = mcp_runtime(mcp={"odd": odd_server("schema")}, permission={"odd_*": "allow"})
    sid = await runtime.prompt("go")
    tools = sent_tools(scripted_server.requests[0])
    assert "odd_fine" in tools and "odd_bad_props" not in tools
    (notice,) = runtime.notices
    assert "MCP tool 'bad_props' of 'odd' left out" in notice and "not valid JSON Schema" in notice
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and "called 'fine'" in part.state.output


async def test_a_tool_that_is_not_mcp_leaves_only_that_tool_out(
    mcp_runtime: Any, scripted_server: Any
) -> None:
    """Issue 27.7: a tool whose inputSchema is a string no longer fails the whole server."""
    scripted_server.queue(Reply(tool_calls=[ToolCall("raw_fine", json.dumps({"q": "x"}))]), Reply(text="ok"))
    raw = {"type": "local", "command": [sys.executable, str(RAW)]}
    allow = {"*": "allow", "raw_*": "allow"}
    runtime = mcp_runtime(mcp={"raw": raw, "demo": stdio_server()}, permission=allow)
    sid = await runtime.prompt("go")
    (notice,) = runtime.notices
    assert notice == (
        "MCP tool 'oops' of 'raw' left out: its listing is not valid MCP (inputSchema: Input should be a "
        "valid dictionary)."
    )
    tools = sent_tools(scripted_server.requests[0])
    assert "raw_fine" in tools and "raw_oops" not in tools and "demo_echo" in tools
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and "fine" in part.state.output, part.state
    assert runtime.store.messages(sid)[-1].info.error is None


async def test_odd_and_colliding_tool_names(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(tool_calls=[ToolCall("notebook_get_weather_", "{}")]), Reply(text="done"))
    runtime = mcp_runtime(mcp={"notebook": odd_server("names")}, permission={"notebook_*": "allow"})
    register_kernel_tools(runtime.registry)  # as in a kernel: notebook_edit is ours
    sid = await runtime.prompt("weather")
    tools = sent_tools(scripted_server.requests[0])
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in tools), list(tools)
    assert "notebook_get_weather_" in tools and "notebook__dit__n_code" in tools
    assert tools["notebook_edit"]["description"] != "notebook_edit is a built-in tool."
    assert ("notebook_" + "x" * 55) in tools
    renamed = sorted(n for n in runtime.notices if "is taken" in n)
    assert len(renamed) == 3, runtime.notices
    said = "MCP tool 'edit' of 'notebook' is offered as notebook_edit_2: notebook_edit is taken by"
    assert f"{said} a built-in tool." in renamed
    assert tools["notebook_edit_2"]["description"] == "notebook_edit is a built-in tool."
    assert any("'get/weather?' of 'notebook' is offered as notebook_get_weather__2" in n for n in renamed)
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and part.state.output == "called 'get weather!' with {}"
