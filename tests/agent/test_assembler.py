"""The event → part assembler on its own: no store, no model, only the writes it asks for."""

from __future__ import annotations

from jupyter_agent.agent.assembler import PartAssembler, PartWrite, shown_input
from jupyter_agent.core.messages import (
    ReasoningPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    Tokens,
    ToolPart,
)
from jupyter_agent.core.stream_events import (
    AttemptRestart,
    FinishStep,
    ReasoningDelta,
    ReasoningMetadata,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
)


def _feed(asm: PartAssembler, *events: object) -> list[PartWrite]:
    return [w for e in events for w in asm.feed(e)]


def test_text_grows_in_place_and_ends_with_a_time() -> None:
    asm = PartAssembler("ses_1", "msg_1")
    (start,) = asm.start()
    assert isinstance(start.part, StepStartPart)
    writes = _feed(asm, TextStart(), TextDelta(delta="Hel"), TextDelta(delta="lo"), TextEnd())
    opened, first, second, ended = writes
    assert isinstance(opened.part, TextPart) and not opened.final
    assert first.part is opened.part and first.delta == "Hel" and second.delta == "lo"
    assert opened.part.text == "Hello"  # the stored object itself grew
    assert isinstance(ended.part, TextPart) and ended.final and ended.part.time and ended.part.time.end


def test_tool_calls_keep_order_raw_arguments_and_a_readable_input() -> None:
    asm = PartAssembler("ses_1", "msg_1")
    asm.start()
    _feed(asm, ToolCall(call_id="a", name="read", arguments='{"filePath": "x"}'))
    _feed(asm, ToolCall(call_id="b", name="bash", arguments='{"command": '))
    calls = asm.tool_calls()
    assert [(p.call_id, raw) for p, raw in calls] == [("a", '{"filePath": "x"}'), ("b", '{"command": ')]
    first, second = (p for p, _ in calls)
    assert isinstance(first, ToolPart) and first.state.status == "pending"
    assert first.state.input == {"filePath": "x"} and second.state.input == {"raw": '{"command": '}
    assert shown_input("[1]") == {"value": [1]} and shown_input("  ") == {}


def test_finish_closes_open_text_and_reports_usage() -> None:
    asm = PartAssembler("ses_1", "msg_1")
    asm.start()
    writes = _feed(asm, TextDelta(delta="hi"), FinishStep(reason="stop", usage=Tokens(input=3), cost=None))
    kinds = [type(w.part).__name__ for w in writes]
    assert kinds == ["TextPart", "TextPart", "TextPart", "StepFinishPart"]
    finish = writes[-1].part
    assert isinstance(finish, StepFinishPart) and finish.cost_unknown and finish.tokens.input == 3
    assert asm.finish is not None and asm.finish.reason == "stop"


def test_a_restarted_attempt_takes_back_what_it_streamed() -> None:
    asm = PartAssembler("ses_1", "msg_1")
    asm.start()
    streamed = _feed(asm, TextDelta(delta="par"), ToolCall(call_id="a", name="ls", arguments="{}"))
    streamed += _feed(asm, FinishStep(reason="tool-calls", usage=Tokens()))
    removed = asm.feed(AttemptRestart(attempt=2))
    assert all(w.removed for w in removed)
    assert {w.part.id for w in removed} == {w.part.id for w in streamed}  # never the step start
    assert asm.finish is None and asm.tool_calls() == []


def test_thinking_blocks_move_to_the_last_reasoning_part() -> None:
    asm = PartAssembler("ses_1", "msg_1")
    asm.start()
    _feed(asm, ReasoningDelta(delta="one"), ReasoningMetadata(provider_metadata={"blocks": [1]}))
    _feed(asm, ReasoningDelta(delta="two"))
    writes = asm.feed(ReasoningMetadata(provider_metadata={"blocks": [1, 2]}))
    updated = [w.part for w in writes if isinstance(w.part, ReasoningPart)]
    cleared, moved = updated[-2], updated[-1]
    assert cleared.text == "one" and cleared.provider_metadata is None
    assert moved.text == "two" and moved.provider_metadata == {"blocks": [1, 2]}
    only = PartAssembler("ses_1", "msg_2")
    (created,) = only.feed(ReasoningMetadata(provider_metadata={"redacted": True}))
    assert isinstance(created.part, ReasoningPart) and created.part.provider_metadata == {"redacted": True}
