"""Build histories by hand for the pure context tests."""

from __future__ import annotations

from typing import Any

from jupyter_agent.core import ids
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageWithParts,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    ToolTimeCompleted,
    UserMessage,
)

SID = "ses_test"


def user(text: str = "hi") -> MessageWithParts:
    mid = ids.ascending("msg")
    return MessageWithParts(
        info=UserMessage(id=mid, session_id=SID),
        parts=[TextPart(id=ids.ascending("prt"), session_id=SID, message_id=mid, text=text)],
    )


def assistant(parent: MessageWithParts, *parts: Any, **info: Any) -> MessageWithParts:
    mid = ids.ascending("msg")
    built = []
    for p in parts:
        if isinstance(p, str):
            built.append(TextPart(id=ids.ascending("prt"), session_id=SID, message_id=mid, text=p))
        else:
            built.append(p.model_copy(update={"message_id": mid}))
    info.setdefault("finish", "stop")
    return MessageWithParts(
        info=AssistantMessage(id=mid, session_id=SID, parent_id=parent.info.id, **info), parts=built
    )


def tool(name: str = "read", output: str = "x", compacted: int | None = None, **input: Any) -> ToolPart:
    return ToolPart(
        id=ids.ascending("prt"),
        session_id=SID,
        message_id="",
        call_id=ids.ascending("call"),
        tool=name,
        state=ToolStateCompleted(
            input=input,
            output=output,
            title=name,
            time=ToolTimeCompleted(start=1, end=2, compacted=compacted),
        ),
    )


def tokens(n: int) -> Tokens:
    return Tokens(input=n)
