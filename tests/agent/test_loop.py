"""The loop end to end: real HTTP through litellm to the scripted server, real SQLite."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

from scripted_server import ErrorReply, Reply, ToolCall, Usage

from jupyter_agent.core.messages import (
    AssistantMessage,
    ReasoningPart,
    RetryPart,
    TextPart,
    ToolPart,
)
from jupyter_agent.storage.sqlite_store import SqliteStore


def events_of(runtime: Any, kind: str) -> list[Any]:
    return [e for e in runtime.events if e.type == kind]


def _parts(runtime: Any, session_id: str, kind: type) -> list[Any]:
    return [p for m in runtime.store.messages(session_id) for p in m.parts if isinstance(p, kind)]


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_three_step_tool_loop_ends_in_text(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "a.txt", "content": "hello\n"}))]),
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": "a.txt"}))]),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "cat a.txt | wc -c"}))]),
        Reply(text="The file has 6 bytes.", usage=Usage(prompt_tokens=900, completion_tokens=12)),
    )
    runtime = make_runtime()
    session_id = await runtime.prompt("make a file and check it")
    assert (tmp_path / "a.txt").read_text() == "hello\n"
    assert len(scripted_server.requests) == 4
    last = scripted_server.requests[-1]["body"]
    results = _tool_results(last)
    assert len(results) == 3 and "hello" in results[1] and "6" in results[2]
    # every tool call in the request has its result right after it
    ids = [c["id"] for m in last["messages"] if m.get("tool_calls") for c in m["tool_calls"]]
    assert ids == [m["tool_call_id"] for m in last["messages"] if m["role"] == "tool"]
    # persisted: a fresh store sees the finished answer
    again = SqliteStore.for_directory(tmp_path)
    history = again.messages(session_id)
    texts = [p.text for m in history for p in m.parts if isinstance(p, TextPart)]
    assert texts[-1] == "The file has 6 bytes."
    final = history[-1].info
    assert isinstance(final, AssistantMessage) and final.finish == "stop"
    assert final.tokens.input == 900 and final.tokens.output == 12
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed"] * 3
    again.close()


async def test_reasoning_is_streamed_as_deltas(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(reasoning="Let me think about this carefully.", text="42"))
    runtime = make_runtime()
    sid = await runtime.prompt("answer")
    reasoning = _parts(runtime, sid, ReasoningPart)
    assert reasoning and reasoning[0].text == "Let me think about this carefully."
    deltas = [e.delta for e in events_of(runtime, "part.updated") if e.part.type == "reasoning" and e.delta]
    assert len(deltas) > 1 and "".join(deltas) == reasoning[0].text


async def test_429_retry_after_is_honoured_and_recorded(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        ErrorReply(status=429, body="rate limited", headers={"retry-after": "1"}),
        Reply(text="ok after waiting"),
    )
    runtime = make_runtime()
    started = time.monotonic()
    sid = await runtime.prompt("hi")
    assert time.monotonic() - started >= 0.9
    retries = _parts(runtime, sid, RetryPart)
    assert len(retries) == 1 and retries[0].attempt == 1
    assert _parts(runtime, sid, TextPart)[-1].text == "ok after waiting"


async def test_500_twice_then_success(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        ErrorReply(status=500, body="boom", headers={"retry-after-ms": "50"}),
        ErrorReply(status=500, body="boom", headers={"retry-after-ms": "50"}),
        Reply(text="third time lucky"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("hi")
    assert [r.attempt for r in _parts(runtime, sid, RetryPart)] == [1, 2]
    assert _parts(runtime, sid, TextPart)[-1].text == "third time lucky"


async def test_disconnect_mid_stream_then_success(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(text="this answer will be cut off " * 20, disconnect_after_chunks=3),
        Reply(text="complete answer"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("hi")
    texts = [p.text for p in _parts(runtime, sid, TextPart) if not p.text.startswith("hi")]
    assert texts == ["complete answer"]
    assert _parts(runtime, sid, RetryPart)


async def test_malformed_tool_json_becomes_tool_error(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("read", '{"filePath": ')]),
        Reply(text="sorry, fixed"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("read it")
    tool = _parts(runtime, sid, ToolPart)[0]
    assert tool.state.status == "error" and "JSON" in tool.state.error
    assert "JSON" in _tool_results(scripted_server.requests[1]["body"])[0]
    assert _parts(runtime, sid, TextPart)[-1].text == "sorry, fixed"


async def test_unknown_tool_is_reported_to_the_model(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(tool_calls=[ToolCall("teleport", "{}")]), Reply(text="ok"))
    runtime = make_runtime()
    sid = await runtime.prompt("go")
    tool = _parts(runtime, sid, ToolPart)[0]
    assert tool.state.status == "error" and "Unknown tool 'teleport'" in tool.state.error
    assert "read" in tool.state.error  # lists what is available


async def test_doom_loop_asks_and_headless_rejects(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("x")
    same = json.dumps({"filePath": "x.txt"})
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("read", same), ToolCall("read", same), ToolCall("read", same)]),
        Reply(text="I will stop repeating myself."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("loop")
    tools = _parts(runtime, sid, ToolPart)
    assert [t.state.status for t in tools[:2]] == ["completed", "completed"]
    assert tools[2].state.status == "error" and "doom_loop" in tools[2].state.error


async def test_doom_loop_interactive_once_continues(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("x")
    same = json.dumps({"filePath": "x.txt"})
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("read", same)] * 3),
        Reply(text="done"),
    )
    runtime = make_runtime(interactive=True)
    asked: list[Any] = []

    def answer(event: Any) -> None:
        asked.append(event.request)
        asyncio.get_running_loop().call_soon(runtime.permissions.reply, event.request.id, "once")

    runtime.bus.subscribe(answer, "permission.asked")
    sid = await runtime.prompt("loop")
    assert [r.permission for r in asked] == ["doom_loop"]
    assert [t.state.status for t in _parts(runtime, sid, ToolPart)] == ["completed"] * 3


async def test_stop_during_running_tool(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo started; sleep 30"}))])
    )
    runtime = make_runtime()
    task = asyncio.create_task(runtime.prompt("wait"))
    for _ in range(200):
        await asyncio.sleep(0.05)
        running = [
            e
            for e in events_of(runtime, "part.updated")
            if isinstance(e.part, ToolPart)
            and e.part.state.status == "running"
            and "started" in str(e.part.state.metadata.get("output", ""))
        ]
        if running:
            break
    stopped_at = time.monotonic()
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert time.monotonic() - stopped_at < 5
    sid = runtime.sessions()[0].id
    tool = _parts(runtime, sid, ToolPart)[0]
    assert tool.state.status == "error" and tool.state.error == "Tool execution aborted"
    assert tool.state.metadata.get("interrupted") is True
    assert "started" in str(tool.state.metadata.get("output", ""))
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error and last.error.name == "aborted"


async def test_max_steps_appends_notice(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("list", "{}")]),
        Reply(text="Summary of where I stopped."),
    )
    runtime = make_runtime(steps=2)
    await runtime.prompt("explore forever")
    second = scripted_server.requests[1]["body"]["messages"]
    assert second[-1]["role"] == "assistant"
    assert "maximum" in str(second[-1]["content"]).lower()
    assert scripted_server.requests[1]["body"].get("tools")


async def test_title_is_generated_after_the_first_exchange(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="hello"), Reply(text="again"))
    scripted_server.title_reply = Reply(text='"Sales analysis by month"\n')
    runtime = make_runtime(small_model="openai/small")
    sid = await runtime.prompt("analyse sales by month")
    assert runtime.store.get_session(sid).title == "Sales analysis by month"
    assert scripted_server.completions[0]["body"]["model"] == "small"
    assert "analyse sales by month" in json.dumps(scripted_server.completions[0]["body"]["messages"])
    await runtime.prompt("more", session_id=sid)
    assert len(scripted_server.completions) == 1  # titled once
