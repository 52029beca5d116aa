"""The loop end to end with real tools and SQLite, against the in-process scripted model;
the first test also runs over real HTTP through litellm to the scripted server.

Provider errors, bad tool calls and Stop are in the fault suite, tests/faults/.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall, Usage

from jupyter_agent.core.messages import (
    AssistantMessage,
    ReasoningPart,
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


@pytest.fixture(params=["scripted_model", pytest.param("scripted_server", marks=pytest.mark.slow)])
def either_model(request: pytest.FixtureRequest) -> Any:
    """Each model in turn; requested before ``make_runtime``, which then uses it."""
    return request.getfixturevalue(request.param)


async def test_three_step_tool_loop_ends_in_text(
    either_model: Any, make_runtime: Any, tmp_path: Path
) -> None:
    scripted_model = either_model
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "a.txt", "content": "hello\n"}))]),
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": "a.txt"}))]),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "cat a.txt | wc -c"}))]),
        Reply(text="The file has 6 bytes.", usage=Usage(prompt_tokens=900, completion_tokens=12)),
    )
    runtime = make_runtime()
    session_id = await runtime.prompt("make a file and check it")
    assert (tmp_path / "a.txt").read_text() == "hello\n"
    assert len(scripted_model.requests) == 4
    last = scripted_model.requests[-1]["body"]
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


async def test_reasoning_is_streamed_as_deltas(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(reasoning="Let me think about this carefully.", text="42"))
    runtime = make_runtime()
    sid = await runtime.prompt("answer")
    reasoning = _parts(runtime, sid, ReasoningPart)
    assert reasoning and reasoning[0].text == "Let me think about this carefully."
    deltas = [e.delta for e in events_of(runtime, "part.updated") if e.part.type == "reasoning" and e.delta]
    assert len(deltas) > 1 and "".join(deltas) == reasoning[0].text


async def test_doom_loop_asks_and_headless_rejects(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("x")
    same = json.dumps({"filePath": "x.txt"})
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("read", same), ToolCall("read", same), ToolCall("read", same)]),
        Reply(text="I will stop repeating myself."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("loop")
    tools = _parts(runtime, sid, ToolPart)
    assert [t.state.status for t in tools[:2]] == ["completed", "completed"]
    assert tools[2].state.status == "error" and "doom_loop" in tools[2].state.error


async def test_doom_loop_interactive_once_continues(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "x.txt").write_text("x")
    same = json.dumps({"filePath": "x.txt"})
    scripted_model.queue(
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


async def test_max_steps_appends_notice(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("list", "{}")]),
        Reply(text="Summary of where I stopped."),
    )
    runtime = make_runtime(steps=2)
    await runtime.prompt("explore forever")
    second = scripted_model.requests[1]["body"]["messages"]
    assert second[-1]["role"] == "assistant"
    assert "maximum" in str(second[-1]["content"]).lower()
    assert scripted_model.requests[1]["body"].get("tools")


async def test_title_is_generated_after_the_first_exchange(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"), Reply(text="again"))
    scripted_model.title_reply = Reply(text='"Sales analysis by month"\n')
    runtime = make_runtime(small_model="openai/small")
    sid = await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()
    assert runtime.store.get_session(sid).title == "Sales analysis by month"
    assert scripted_model.completions[0]["body"]["model"] == "small"
    assert "analyse sales by month" in json.dumps(scripted_model.completions[0]["body"]["messages"])
    await runtime.prompt("more", session_id=sid)
    assert len(scripted_model.completions) == 1  # titled once
