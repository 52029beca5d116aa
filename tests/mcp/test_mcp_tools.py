"""MCP tools through the whole loop: a real demo server (stdio and HTTP), the scripted model."""

from __future__ import annotations

import asyncio
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
from jupyter_agent.mcp.tools import progress_view

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


async def test_http_with_env_header_redacted(
    mcp_runtime: Any, scripted_server: Any, http_server: Any, monkeypatch: Any
) -> None:
    secret = "s3cr3t-value-for-demo"
    monkeypatch.setenv("DEMO_HTTP_AUTH", secret)  # a name no suffix rule would redact
    server = http_server(DEMO_REQUIRE_TOKEN=secret, DEMO_TOKEN=secret)
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("web_whoami", "{}"),
                ToolCall("web_echo", json.dumps({"text": "x"})),
                ToolCall("web_chart", "{}"),
                ToolCall("web_explode", "{}"),
            ]
        ),
        Reply(text="done"),
    )
    remote = {
        "type": "remote",
        "url": server.url,
        "headers": {"Authorization": "Bearer {env:DEMO_HTTP_AUTH}"},
    }
    runtime = mcp_runtime(mcp={"web": remote}, permission={"web_*": "allow"})
    sid = await runtime.prompt("who are you")
    whoami, echo, chart, explode = tool_parts(runtime, sid)
    assert echo.state.status == "completed" and echo.state.output == "echo: X"
    assert chart.state.status == "completed" and chart.state.attachments[0].mime == "image/png"
    assert explode.state.status == "error" and "database is locked" in explode.state.error
    assert whoami.state.status == "completed"
    assert secret not in whoami.state.output and "[REDACTED:DEMO_HTTP_AUTH]" in whoami.state.output
    assert secret not in json.dumps(scripted_server.requests[1]["body"])
    shown = runtime.config.redacted()["mcp"]["web"]["headers"]
    assert shown == {"Authorization": "Bearer {env:DEMO_HTTP_AUTH}"}  # the reference, not the value


async def test_http_without_the_token_fails_and_the_run_goes_on(
    mcp_runtime: Any, scripted_server: Any, http_server: Any
) -> None:
    server = http_server(DEMO_REQUIRE_TOKEN="expected-token-123")
    scripted_server.queue(Reply(text="no tools, fine"))
    runtime = mcp_runtime(mcp={"web": {"type": "remote", "url": server.url}})
    sid = await runtime.prompt("hello")
    assert "web_echo" not in sent_tools(scripted_server.requests[0])
    assert any("MCP server 'web'" in n and "401" in n for n in runtime.notices), runtime.notices
    assert runtime.store.messages(sid)[-1].info.error is None


async def test_server_that_fails_to_start_is_reported_once(mcp_runtime: Any, scripted_server: Any) -> None:
    crash = "import sys; print('boom: DB_URL is missing', file=sys.stderr); sys.exit(3)"
    scripted_server.queue(Reply(text="answer without tools"), Reply(text="again"))
    runtime = mcp_runtime(
        mcp={
            "broken": {"type": "local", "command": [sys.executable, "-c", crash]},
            "ghost": {"type": "local", "command": ["no-such-mcp-server-binary"]},
            "demo": stdio_server(),
        },
        **ALLOW,
    )
    sid = await runtime.prompt("hi")
    notices = list(runtime.notices)
    broken = next(n for n in notices if "'broken'" in n)
    assert sys.executable in broken and "boom: DB_URL is missing" in broken
    assert "closed the connection before answering" in broken and "MCPError" not in broken
    ghost = next(n for n in notices if "'ghost'" in n)
    assert "command not found" in ghost and "no-such-mcp-server-binary" in ghost
    tools = sent_tools(scripted_server.requests[0])
    assert "demo_echo" in tools and not any(n.startswith(("broken_", "ghost_")) for n in tools)
    runtime.notices.clear()
    await runtime.prompt("again", session_id=sid)
    assert runtime.notices == []  # reported once
    assert [m.info.error for m in runtime.store.messages(sid) if m.info.role == "assistant"] == [None, None]


async def test_missing_env_reference_is_reported(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="ok"))
    runtime = mcp_runtime(mcp={"demo": stdio_server(DEMO_TOKEN="{env:NOT_SET_ANYWHERE}")})
    await runtime.prompt("hi")
    assert any(
        "NOT_SET_ANYWHERE is not set (used in mcp.demo.environment.DEMO_TOKEN)" in n for n in runtime.notices
    )


async def test_server_killed_mid_call(mcp_runtime: Any, scripted_server: Any, tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_slow", json.dumps({"seconds": 60}))]),
        Reply(text="the server died"),
        Reply(text="second prompt"),
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server(DEMO_PID_FILE=str(pid_file))}, **ALLOW)

    def killer() -> None:
        deadline = time.time() + 60
        while time.time() < deadline:  # the file may exist before its pid is written
            text = pid_file.read_text().strip() if pid_file.exists() else ""
            if text:
                os.kill(int(text), signal.SIGKILL)
                return
            time.sleep(0.05)

    threading.Thread(target=killer, daemon=True).start()
    started = time.time()
    sid = await runtime.prompt("sleep")
    assert time.time() - started < 40
    (slow,) = tool_parts(runtime, sid)
    assert (
        slow.state.status == "error"
        and "MCP server 'demo' stopped during a call to 'slow'" in slow.state.error
    )
    assert runtime.services.mcp.servers["demo"].state == "failed"
    assert "the server died" in json.dumps(runtime.store.messages(sid)[-1].model_dump())
    await runtime.prompt("again", session_id=sid)
    assert "demo_slow" not in sent_tools(scripted_server.requests[-1])


async def test_ask_is_the_default_and_refused_headless(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "hi"}))]), Reply(text="refused")
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, permission={"*": "allow"})
    sid = await runtime.prompt("echo")
    (echo,) = tool_parts(runtime, sid)
    assert echo.state.status == "error" and echo.state.metadata.get("rejected")
    assert "not interactive" in echo.state.error
    assert '{"permission": {"demo_echo": "allow"}}' in echo.state.error


async def test_ask_answered_interactively(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "ok"}))]), Reply(text="done")
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, interactive=True)
    asked: list[Any] = []

    def answer(event: Any) -> None:
        asked.append(event.request)
        asyncio.get_running_loop().call_soon(runtime.permissions.reply, event.request.id, "once")

    runtime.bus.subscribe(answer, "permission.asked")
    sid = await runtime.prompt("echo")
    (echo,) = tool_parts(runtime, sid)
    assert echo.state.status == "completed" and echo.state.output == "echo: OK"
    assert [(r.permission, r.patterns) for r in asked] == [("demo_echo", ["demo_echo"])]


async def test_named_rules_beat_the_default(mcp_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "a"})), ToolCall("demo_whoami", "{}")]),
        Reply(text="done"),
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, permission={"demo_*": "deny", "demo_echo": "allow"})
    sid = await runtime.prompt("go")
    echo, whoami = tool_parts(runtime, sid)
    assert echo.state.status == "completed"
    assert whoami.state.status == "error" and "denied by the configuration" in whoami.state.error


async def test_output_is_truncated(mcp_runtime: Any, scripted_server: Any, tmp_path: Path) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_lines", json.dumps({"count": 500}))]), Reply(text="done")
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, tool_output={"max_lines": 50}, **ALLOW)
    sid = await runtime.prompt("lines")
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and part.state.metadata["truncated"] is True
    assert "line 51" not in part.state.output and "...450 lines truncated..." in part.state.output
    assert Path(part.state.metadata["output_path"]).read_text().endswith("line 500")


async def test_progress_shows_live_in_the_running_tool(mcp_runtime: Any, scripted_server: Any) -> None:
    """A long MCP tool showed nothing between `running` and `completed`: the call now carries a
    progress token and the server's reports (message, fraction) reach the running tool part."""
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_crunch", json.dumps({"steps": 4, "delay": 0.3}))]),
        Reply(text="done"),
    )
    runtime = mcp_runtime(mcp={"demo": stdio_server()}, model="openai/gpt-4o", **ALLOW)
    seen: list[dict[str, Any]] = []

    def watch(event: Any) -> None:
        part = getattr(event, "part", None)
        if isinstance(part, ToolPart) and part.state.status == "running":
            progress = part.state.metadata.get("progress")
            if progress and (not seen or seen[-1] != progress):
                seen.append(progress)

    runtime.bus.subscribe(watch)
    sid = await runtime.prompt("crunch")
    (part,) = tool_parts(runtime, sid)
    assert part.state.status == "completed" and part.state.output == "crunched 4 chunks"
    assert len(seen) >= 2, seen  # live, one report after another (not only the last)
    for report in seen:
        step = int(report["progress"])
        assert report == {
            "progress": step,
            "total": 4,
            "fraction": step / 4,
            "message": f"crunched {step} of 4 chunks",
        }
    fractions = [r["fraction"] for r in seen]
    assert fractions == sorted(set(fractions)) and fractions[0] < 1.0
    assert "progress" not in part.state.metadata  # the finished tool keeps its result, not the bar


def test_progress_that_makes_no_sense_shows_no_fraction() -> None:
    """A misbehaving server: no total, a zero or infinite total, more done than the total."""
    assert progress_view(3, None, "working") == {"progress": 3, "message": "working"}
    assert progress_view(3, 0, None) == {"progress": 3}
    assert progress_view(3, float("inf"), None) == {"progress": 3}
    assert progress_view(12, 10, "x" * 500)["fraction"] == 1.0
    assert len(progress_view(1, 2, "x" * 500)["message"]) == 200
