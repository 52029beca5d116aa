"""SPEC "Stored messages → model messages" and "Prompt caching"."""

from __future__ import annotations

import json

from helpers import SID, assistant, tool, user

from jupyter_agent.context.to_provider import (
    ATTACHED_FROM_TOOL,
    CLEARED,
    INTERRUPTED,
    NO_VISION,
    apply_caching,
    to_model_messages,
)
from jupyter_agent.core import ids
from jupyter_agent.core.messages import (
    Attachment,
    MessageError,
    ReasoningPart,
    StepStartPart,
    TextPart,
    ToolPart,
    ToolStateError,
    ToolStateRunning,
    ToolTimeError,
)

PNG = Attachment(mime="image/png", url="data:image/png;base64,AAAA", filename="p.png")


def _convert(history, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("model", "openai/test")
    return to_model_messages(history, **kw)


def test_calls_and_results_pair_up_including_pruned_and_interrupted() -> None:
    u = user("go")
    pruned = tool(output="secret data", compacted=123, filePath="a")
    running = ToolPart(
        id=ids.ascending("prt"),
        session_id=SID,
        message_id="",
        call_id="c_run",
        tool="bash",
        state=ToolStateRunning(input={"command": "sleep"}),
    )
    failed = ToolPart(
        id=ids.ascending("prt"),
        session_id=SID,
        message_id="",
        call_id="c_err",
        tool="read",
        state=ToolStateError(input={}, error="File not found", time=ToolTimeError(start=1)),
    )
    a = assistant(u, "working", pruned, running, failed, finish="tool-calls")
    out = _convert([u, a])
    assert out[0] == {"role": "user", "content": "go"}
    call_ids = [c["id"] for c in out[1]["tool_calls"]]
    results = [(m["tool_call_id"], m["content"]) for m in out[2:]]
    assert [r[0] for r in results] == call_ids
    assert [r[1] for r in results] == [CLEARED, INTERRUPTED, "File not found"]
    assert json.loads(out[1]["tool_calls"][0]["function"]["arguments"]) == {"filePath": "a"}
    assert "secret data" not in json.dumps(out)


def test_skips_empty_ignored_and_failed_messages() -> None:
    u = user("q")
    u.parts.append(
        TextPart(id=ids.ascending("prt"), session_id=SID, message_id=u.info.id, text="hidden", ignored=True)
    )
    only_start = assistant(u)
    only_start.parts.append(
        StepStartPart(id=ids.ascending("prt"), session_id=SID, message_id=only_start.info.id)
    )
    errored = assistant(u, "half", error=MessageError(name="api", message="500"))
    aborted = assistant(u, "partial answer", error=MessageError(name="aborted", message="stop"))
    aborted_empty = assistant(u, "", error=MessageError(name="aborted", message="stop"))
    out = _convert([u, only_start, errored, aborted, aborted_empty])
    assert out == [{"role": "user", "content": "q"}, {"role": "assistant", "content": "partial answer"}]


def test_tool_images_move_to_a_user_message_or_stay_inline() -> None:
    u = user("plot")
    t = tool("python", output="done")
    t = t.model_copy(update={"state": t.state.model_copy(update={"attachments": [PNG]})})
    a = assistant(u, t, finish="tool-calls")
    moved = _convert([u, a], supports_vision=True, supports_media_in_tool_results=False)
    assert moved[2]["role"] == "tool" and moved[2]["content"] == "done"
    assert moved[3]["role"] == "user" and moved[3]["content"][0]["text"] == ATTACHED_FROM_TOOL
    assert moved[3]["content"][1]["image_url"]["url"] == PNG.url
    inline = _convert(
        [u, a], model="anthropic/claude-x", supports_vision=True, supports_media_in_tool_results=True
    )
    assert inline[2]["content"][1]["type"] == "image_url" and len(inline) == 3
    blind = _convert([u, a], supports_vision=False)
    assert NO_VISION in blind[2]["content"] and len(blind) == 3


def test_claude_ids_are_sanitised() -> None:
    u = user("x")
    t = tool()
    t = t.model_copy(update={"call_id": "call:1/2"})
    out = _convert([u, assistant(u, t)], model="anthropic/claude-sonnet-4-5")
    assert out[1]["tool_calls"][0]["id"] == "call_1_2" and out[2]["tool_call_id"] == "call_1_2"


def test_caching_only_for_anthropic_family() -> None:
    msgs = [
        {"role": "system", "content": "s1"},
        {"role": "system", "content": "s2"},
        {"role": "system", "content": "s3"},
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
        {"role": "user", "content": "u2"},
    ]
    assert apply_caching(msgs, "openai/gpt-5") == msgs
    cached = apply_caching(msgs, "anthropic/claude-sonnet-4-5")
    marked = [i for i, m in enumerate(cached) if "cache_control" in json.dumps(m)]
    assert marked == [0, 1, 4, 5]
    assert cached[4]["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert cached[5]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" in json.dumps(apply_caching(msgs, "bedrock/anthropic.claude-3"))


def test_provider_metadata_goes_back_only_to_the_model_that_wrote_it() -> None:
    from jupyter_agent.core.messages import ReasoningPart

    blocks = [
        {"type": "thinking", "thinking": "hm", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "xx"},
    ]
    reasoning = ReasoningPart(
        id=ids.ascending("prt"),
        session_id="ses_test",
        message_id="",
        text="hm",
        provider_metadata={"thinking_blocks": blocks},
    )
    t = tool().model_copy(update={"provider_metadata": {"thought_signature": "gem-sig"}})
    u = user("x")
    history = [u, assistant(u, reasoning, t, model="anthropic/claude-sonnet-4-5")]
    same = to_model_messages(history, model="anthropic/claude-sonnet-4-5")
    assert same[1]["thinking_blocks"] == blocks
    assert same[1]["tool_calls"][0]["provider_specific_fields"] == {"thought_signature": "gem-sig"}
    for other in (
        to_model_messages(history, model="anthropic/claude-opus-4-1"),
        to_model_messages(history, model="anthropic/claude-sonnet-4-5", for_compaction=True),
    ):
        assert "thinking_blocks" not in other[1] and "provider_specific_fields" not in json.dumps(other)


def test_cache_mark_on_a_tool_call_only_message_goes_on_its_last_call() -> None:
    calls = [
        {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": "{}"}} for n in (1, 2)
    ]
    msgs = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "tool", "tool_call_id": "c2", "content": "r2"},
    ]
    cached = apply_caching(
        [*msgs[:3], {"role": "tool", "tool_call_id": "c1", "content": "r"}], "anthropic/claude-sonnet-4-5"
    )
    assert "cache_control" not in cached[2]
    assert cached[2]["tool_calls"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in cached[2]["tool_calls"][0] and "cache_control" not in calls[-1]
    assert apply_caching(msgs, "anthropic/claude-sonnet-4-5")[4]["cache_control"] == {"type": "ephemeral"}


def _reasoning(text: str, **metadata: object) -> ReasoningPart:
    return ReasoningPart(
        id=ids.ascending("prt"),
        session_id=SID,
        message_id="",
        text=text,
        provider_metadata=metadata or None,
    )


def test_reasoning_goes_back_as_reasoning_content_to_the_model_that_wrote_it() -> None:
    u = user("x")
    history = [
        u,
        assistant(u, _reasoning("step one; "), _reasoning("step two"), "done", model="openai/qwen3"),
    ]
    [_, same] = to_model_messages(history, model="openai/qwen3")
    assert same == {"role": "assistant", "content": "done", "reasoning_content": "step one; step two"}
    [_, other] = to_model_messages(history, model="openai/gpt-5")
    assert other == {"role": "assistant", "content": "done"}
    [_, summary_input] = to_model_messages(history, model="openai/qwen3", for_compaction=True)
    assert summary_input == {
        "role": "assistant",
        "content": "[Assistant reasoning]: step one; \n[Assistant reasoning]: step two\ndone",
    }


def test_unsigned_claude_thinking_is_not_sent_back() -> None:
    """Claude takes its thinking back only as signed blocks (a Stop can leave text without one)."""
    u = user("x")
    history = [u, assistant(u, _reasoning("half a thought"), "ok", model="anthropic/claude-sonnet-4-5")]
    [_, same] = to_model_messages(history, model="anthropic/claude-sonnet-4-5")
    assert same == {"role": "assistant", "content": "ok"}
