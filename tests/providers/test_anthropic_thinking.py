"""Claude through litellm's real ``anthropic/`` provider against the scripted Messages endpoint:
extended thinking round-trips (signature included) so tool use with thinking works."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anthropic_server import THINKING, AReply, AToolUse, AUsage, signature_for

from jupyter_agent.core.messages import AssistantMessage, ReasoningPart, TextPart, ToolPart


def _parts(runtime: Any, sid: str, kind: type) -> list[Any]:
    return [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, kind)]


async def test_two_step_tool_turn_with_thinking(
    make_claude: Any, anthropic_server: Any, tmp_path: Path
) -> None:
    anthropic_server.queue(
        AReply(
            thinking="I should write the file first.",
            tool_uses=[AToolUse("write", {"filePath": "a.txt", "content": "hello\n"})],
            usage=AUsage(input_tokens=1200, output_tokens=40, cache_creation_input_tokens=1000),
        ),
        AReply(
            thinking="The file is written; I can answer.",
            text="Done: a.txt holds hello.",
            usage=AUsage(input_tokens=60, output_tokens=12, cache_read_input_tokens=1000),
        ),
    )
    runtime = make_claude(options=THINKING)
    sid = await runtime.prompt("write hello to a.txt")
    assert anthropic_server.refusals == []
    assert (tmp_path / "a.txt").read_text() == "hello\n"
    second = anthropic_server.requests[1]["body"]
    assert second["thinking"] == THINKING["thinking"]
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][-1]
    first_block = assistant["content"][0]
    assert first_block["type"] == "thinking"
    assert first_block["signature"] == signature_for("I should write the file first.")
    reasoning = _parts(runtime, sid, ReasoningPart)
    assert [r.text for r in reasoning] == [
        "I should write the file first.",
        "The file is written; I can answer.",
    ]
    assert reasoning[0].provider_metadata == {
        "thinking_blocks": [
            {
                "type": "thinking",
                "thinking": "I should write the file first.",
                "signature": signature_for("I should write the file first."),
            }
        ]
    }
    texts = [p.text for p in _parts(runtime, sid, TextPart)]
    assert texts[-1] == "Done: a.txt holds hello."
    tools = _parts(runtime, sid, ToolPart)
    assert [t.state.status for t in tools] == ["completed"]
    final = runtime.store.messages(sid)[-1].info
    assert isinstance(final, AssistantMessage) and final.finish == "stop"
    assert final.tokens.cache.read == 1000


async def test_without_the_round_trip_anthropic_refuses(anthropic_server: Any) -> None:
    """The endpoint refuses a thinking turn whose tool_use is not preceded by its thinking block."""
    import litellm

    anthropic_server.queue(AReply(text="unused"))
    messages = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "toolu_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "x"},
    ]
    try:
        await litellm.acompletion(
            model="anthropic/claude-sonnet-4-5",
            messages=messages,
            api_base=anthropic_server.base_url,
            api_key="sk-ant-test",
            max_tokens=2048,
            stream=True,
            num_retries=0,
            **THINKING,
        )
    except Exception as exc:  # litellm's BadRequestError
        assert "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in str(exc)
    else:
        raise AssertionError("the endpoint accepted a tool_use without its thinking block")


async def test_breakpoints_on_the_wire_for_a_multi_step_turn(make_claude: Any, anthropic_server: Any) -> None:
    from anthropic_server import breakpoints

    anthropic_server.queue(
        AReply(thinking="first", tool_uses=[AToolUse("bash", {"command": "echo one"})]),
        AReply(
            thinking="second",
            tool_uses=[
                AToolUse("bash", {"command": "echo two"}),
                AToolUse("bash", {"command": "echo three"}),
            ],
        ),
        AReply(thinking="third", text="Three echoes done."),
    )
    runtime = make_claude(options=THINKING)
    await runtime.prompt("echo things")
    assert anthropic_server.refusals == []
    counts = [breakpoints(r["body"]) for r in anthropic_server.requests]
    assert counts[0] in (1, 2) and all(3 <= c <= 4 for c in counts[1:]), counts
    for r in anthropic_server.requests:
        system = r["body"]["system"]
        assert any(block.get("cache_control") for block in system)


async def test_signatures_are_dropped_when_the_model_changes(make_claude: Any, anthropic_server: Any) -> None:
    anthropic_server.queue(
        AReply(thinking="plan", tool_uses=[AToolUse("bash", {"command": "echo x"})]),
        AReply(thinking="done", text="ok"),
        AReply(text="opus here"),
    )
    runtime = make_claude(options=THINKING)
    sid = await runtime.prompt("go")
    await runtime.prompt("and now?", session_id=sid, model="anthropic/claude-opus-4-1")
    assert anthropic_server.refusals == []
    body = anthropic_server.requests[-1]["body"]
    assert body["model"] == "claude-opus-4-1"
    sent = json.dumps(body["messages"])
    assert "signature" not in sent and '"thinking"' not in sent


async def test_redacted_thinking_round_trips(make_claude: Any, anthropic_server: Any) -> None:
    anthropic_server.queue(
        AReply(
            redacted="ENCRYPTED-abc",
            thinking="visible part",
            tool_uses=[AToolUse("bash", {"command": "echo r"})],
        ),
        AReply(text="ok"),
    )
    runtime = make_claude(options=THINKING)
    sid = await runtime.prompt("go")
    assert anthropic_server.refusals == []
    assistant = [m for m in anthropic_server.requests[1]["body"]["messages"] if m["role"] == "assistant"][-1]
    assert [b["type"] for b in assistant["content"]] == ["redacted_thinking", "thinking", "tool_use"]
    assert assistant["content"][0]["data"] == "ENCRYPTED-abc"
    stored = _parts(runtime, sid, ReasoningPart)[0].provider_metadata
    assert stored is not None and [b["type"] for b in stored["thinking_blocks"]] == [
        "redacted_thinking",
        "thinking",
    ]


async def test_stop_while_tool_input_streams_then_continue(
    make_claude: Any, anthropic_server: Any, tmp_path: Path
) -> None:
    """Stop pressed while Claude is still writing a tool's input (thinking on): the tool
    never runs, and the next prompt's history is one Anthropic accepts."""
    import asyncio
    import contextlib

    big = {"filePath": "big.txt", "content": "line\n" * 120}
    anthropic_server.queue(
        AReply(
            thinking="I will write a long file.",
            tool_uses=[AToolUse("write", big)],
            chunk_size=4,
            input_delay=0.02,
        )
    )
    runtime = make_claude(options=THINKING)
    seen: list[Any] = []
    runtime.bus.subscribe(seen.append)
    task = asyncio.create_task(runtime.prompt("write a long file"))
    for _ in range(400):
        await asyncio.sleep(0.02)
        if any(getattr(e, "part", None) is not None and isinstance(e.part, ToolPart) for e in seen):
            break
    else:
        raise AssertionError("the tool call never started streaming")
    await asyncio.sleep(0.2)  # well inside the ~3 s the input takes to stream
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert not (tmp_path / "big.txt").exists()
    sid = runtime.store.list_sessions()[0].id
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None and last.error.name == "aborted"
    assert all(t.state.status != "completed" for t in _parts(runtime, sid, ToolPart))
    anthropic_server.queue(AReply(thinking="Fine.", text="Stopped; nothing was written."))
    await runtime.prompt("never mind", session_id=sid)
    assert anthropic_server.refusals == []
    final = runtime.store.messages(sid)[-1].info
    assert isinstance(final, AssistantMessage) and final.error is None
