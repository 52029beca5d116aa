"""The plain-text stream of a run for front ends without a widget (jupyter console, logs)."""

from __future__ import annotations

from jupyter_agent.core.events import PartUpdated
from jupyter_agent.core.messages import (
    RetryError,
    RetryPart,
    TextPart,
    ToolPart,
    ToolStatePending,
    ToolStateRunning,
)
from jupyter_agent.ui.console_stream import ConsoleStream

BASE = {"session_id": "ses_1", "message_id": "msg_1"}


def _text(delta: str, part_id: str = "prt_t") -> PartUpdated:
    return PartUpdated(part=TextPart(id=part_id, **BASE, text=delta), delta=delta)


def _tool(part_id: str, state: object) -> PartUpdated:
    return PartUpdated(part=ToolPart(id=part_id, **BASE, call_id="c", tool="bash", state=state))


def test_text_as_it_arrives_one_line_per_tool_call_and_nothing_else() -> None:
    out: list[str] = []
    stream = ConsoleStream("ses_1", out.append)
    stream(_text("Let me "))
    stream(_text("check."))
    stream(_tool("prt_b", ToolStatePending()))
    stream(_tool("prt_b", ToolStateRunning(input={"command": "ls -la\nrm -rf /tmp/x"})))
    stream(_tool("prt_b", ToolStateRunning(input={"command": "ls -la"})))  # the same call again
    stream(
        PartUpdated(part=TextPart(id="prt_o", session_id="ses_child", message_id="m", text="x"), delta="x")
    )
    stream(_text("Done.", "prt_u"))
    stream.finish()
    assert "".join(out) == "Let me check.\n[bash ls -la]\nDone.\n"


def test_a_retry_says_the_answer_starts_over() -> None:
    out: list[str] = []
    stream = ConsoleStream("ses_1", out.append)
    stream(_text("half an ans"))
    stream(
        PartUpdated(
            part=RetryPart(id="prt_r", **BASE, attempt=1, error=RetryError(message="cut off"), next=0)
        )
    )
    stream(_text("A whole answer."))
    stream.finish()
    assert "".join(out) == "half an ans\n[retrying: cut off]\nA whole answer.\n"


def test_terminal_controls_from_the_model_are_spelled_out() -> None:
    """A hostile answer must not clear a console, retitle it or hide a line in a CI log."""
    out: list[str] = []
    stream = ConsoleStream("ses_1", out.append)
    stream(_text("safe\rrm -rf ~ \x1b[2J\x1b]0;owned\x07 \ud800"))
    stream.finish()
    shown = "".join(out)
    assert shown == "safe\\x0drm -rf ~ \\x1b[2J\\x1b]0;owned\\x07 ?\n"
    assert "\x1b" not in shown and "\r" not in shown
