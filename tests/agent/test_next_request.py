"""What the next request carries after the model's reasoning, an overflow in the middle of a
turn, a tool call whose JSON does not parse, and a stream cut short (docs/spec.md,
"Differences from OpenCode 1.18.33"). The fast tier: the in-process scripted model."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.context.compaction import CONTINUE_MESSAGE
from jupyter_agent.core.messages import AssistantMessage, RetryPart, TextPart, ToolPart

OVERFLOW = ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length.")
WHAT = "What did we do so far?"


def _messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return list(request["body"]["messages"])


def _assistants(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in _messages(request) if m["role"] == "assistant"]


def _parts(runtime: Any, sid: str, kind: type) -> list[Any]:
    return [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, kind)]


# ------------------------------------------------------------------ reasoning


async def test_a_reasoning_model_gets_its_own_reasoning_back(make_runtime: Any, scripted_model: Any) -> None:
    """DeepSeek, Qwen, vLLM's reasoning parsers stream ``reasoning_content``: the next request
    gives it back on that assistant message (its tool calls stay beside it), as OpenCode does."""
    scripted_model.queue(
        Reply(
            reasoning="The user wants files; glob them.",
            tool_calls=[ToolCall("glob", '{"pattern": "*.csv"}')],
        ),
        Reply(reasoning="Nothing found.", text="No CSV files here."),
        Reply(text="Still none."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("which CSV files are there?")
    [step_one] = _assistants(scripted_model.requests[1])
    assert step_one["reasoning_content"] == "The user wants files; glob them."
    assert step_one["tool_calls"][0]["function"]["name"] == "glob" and step_one["content"] is None
    await runtime.prompt("and now?", session_id=sid)
    turn_one = _assistants(scripted_model.requests[2])
    assert [m.get("reasoning_content") for m in turn_one] == [
        "The user wants files; glob them.",
        "Nothing found.",
    ]
    assert turn_one[1]["content"] == "No CSV files here."


async def test_another_models_reasoning_is_not_sent(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(reasoning="private chain of thought", text="one"), Reply(text="two"))
    runtime = make_runtime()
    sid = await runtime.prompt("first")
    await runtime.prompt("second", session_id=sid, model="openai/other-model")
    assert "private chain of thought" not in json.dumps(_messages(scripted_model.requests[1]))


async def test_the_summary_input_holds_the_reasoning_as_labelled_lines(
    make_runtime: Any, scripted_model: Any
) -> None:
    long = "why " * 800  # 3,200 chars: cut like a tool output
    scripted_model.queue(
        Reply(reasoning="Column b is the target.", text="Fitted on b."),
        Reply(reasoning=long, text="Second answer."),
        Reply(text="## Goal\n- fit"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("fit a model")
    await runtime.prompt("again", session_id=sid)
    await runtime.compact(sid)
    first, second = _assistants(scripted_model.requests[2])
    assert first == {
        "role": "assistant",
        "content": "[Assistant reasoning]: Column b is the target.\nFitted on b.",
    }
    assert "reasoning_content" not in second and second["content"].endswith(
        "\n[Reasoning truncated for compaction: omitted 1200 chars]\nSecond answer."
    )


# ------------------------------------------------------------------ overflow after a tool


async def test_an_overflow_after_a_tool_summarises_the_tool_work_and_continues(
    make_runtime: Any, scripted_model: Any
) -> None:
    """The provider says "too long" after a tool result: the summary covers the tool call and
    its result, and the model is asked to continue (OpenCode would drop that work and re-send
    the prompt, which re-runs the tool that filled the window); the run ends without an error."""
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo result-7f3a"}))]),
        OVERFLOW,
        Reply(text="## Goal\n- ran the command"),
        Reply(text="The command printed result-7f3a."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("run the command")
    summary_input = json.dumps(_messages(scripted_model.requests[2]))
    assert "echo result-7f3a" in summary_input and '"content": "result-7f3a\\n"' in summary_input
    after = _messages(scripted_model.requests[3])
    assert [(m["role"], m["content"]) for m in after[1:]] == [
        ("user", WHAT),
        ("assistant", "## Goal\n- ran the command"),
        ("user", CONTINUE_MESSAGE),
    ]
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is None and last.finish == "stop"


# ------------------------------------------------------------------ malformed tool-call JSON


async def test_a_call_whose_json_does_not_parse_keeps_its_name(
    make_runtime: Any, scripted_model: Any
) -> None:
    """The call stays a ``bash`` call with its raw text, answered "The arguments provided to
    the tool are invalid: …" (OpenCode's words; it renames the call to ``invalid``)."""
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("bash", '{"command": "ls', id="call_bad")]),
        Reply(text="Sorry, fixed."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("list the files")
    [assistant] = _assistants(scripted_model.requests[1])
    assert assistant["tool_calls"][0]["function"] == {
        "name": "bash",
        "arguments": json.dumps({"raw": '{"command": "ls'}),
    }
    result = next(m for m in _messages(scripted_model.requests[1]) if m["role"] == "tool")
    assert result == {
        "role": "tool",
        "tool_call_id": "call_bad",
        "content": "The arguments provided to the tool are invalid: the JSON does not parse: "
        "Unterminated string starting at: line 1 column 13 (char 12). Resend the call with valid JSON.",
    }
    [part] = _parts(runtime, sid, ToolPart)
    assert part.tool == "bash" and part.state.status == "error"
    assert runtime.store.messages(sid)[-1].info.error is None


# ------------------------------------------------------------------ a stream cut short


async def test_a_cut_stream_is_asked_again_without_its_partial_text(
    make_runtime: Any, scripted_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No finish reason: the same request is sent again (OpenCode keeps the cut text and asks
    the model to go on from it); the answer stored is the whole second one."""
    monkeypatch.setattr("jupyter_agent.agent.retrying.INITIAL_DELAY_MS", 10)
    scripted_model.queue(
        Reply(text="The answer is cut here", finish_reason=None),
        Reply(text="The whole answer."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("answer me")
    cut, again = scripted_model.requests
    assert _messages(again) == _messages(cut)
    assert [p.text for p in _parts(runtime, sid, TextPart)] == ["answer me", "The whole answer."]
    assert len(_parts(runtime, sid, RetryPart)) == 1


# ------------------------------------------------------------------ tool_choice


async def test_tool_choice_auto_whenever_tools_are_offered(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"), Reply(text="## Goal\n- greet"))
    runtime = make_runtime()
    sid = await runtime.prompt("hi")
    await runtime.compact(sid)
    step, summary = scripted_model.requests
    assert step["body"]["tool_choice"] == "auto" and step["body"]["tools"]
    assert "tool_choice" not in summary["body"] and "tools" not in summary["body"]
