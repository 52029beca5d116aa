"""Every part and event shape survives a JSON round trip through its TypeAdapter."""

from __future__ import annotations

from jupyter_agent.core.events import EventAdapter, PartUpdated, PermissionAsked, PermissionRequest
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageAdapter,
    MessageError,
    PartAdapter,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    ToolTimeCompleted,
    UserMessage,
)


def test_message_union_discriminates_on_role() -> None:
    user = UserMessage(id="msg_1", session_id="ses_1", agent="plan", model="openai/x")
    assistant = AssistantMessage(
        id="msg_2",
        session_id="ses_1",
        parent_id="msg_1",
        tokens=Tokens(input=5, output=7),
        error=MessageError(name="rate_limit", message="slow down", status=429, retryable=True),
        summary=True,
    )
    for message in (user, assistant):
        again = MessageAdapter.validate_json(MessageAdapter.dump_json(message))
        assert again == message
        assert type(again) is type(message)


def test_tool_state_discriminates_on_status() -> None:
    part = ToolPart(
        id="prt_1",
        session_id="ses_1",
        message_id="msg_2",
        call_id="call_1",
        tool="bash",
        state=ToolStateCompleted(
            input={"command": "ls"},
            output="a\nb",
            title="ls",
            time=ToolTimeCompleted(start=1, end=2, compacted=3),
        ),
    )
    again = PartAdapter.validate_json(PartAdapter.dump_json(part))
    assert isinstance(again, ToolPart)
    assert isinstance(again.state, ToolStateCompleted)
    assert again.state.time.compacted == 3


def test_events_round_trip() -> None:
    request = PermissionRequest(
        id="per_1", session_id="ses_1", message_id="msg_1", permission="bash", patterns=["ls"]
    )
    for event in (
        PermissionAsked(request=request),
        PartUpdated(
            part=PartAdapter.validate_python(
                {"type": "text", "id": "prt_1", "session_id": "s", "message_id": "m", "text": "hi"}
            ),
            delta="hi",
        ),
    ):
        assert EventAdapter.validate_json(event.model_dump_json()) == event
