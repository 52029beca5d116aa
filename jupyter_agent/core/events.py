"""Events on the in-process bus: the only thing the store, widget and side panel consume.

``part.updated`` carries the whole part plus an optional ``delta`` (the text appended since
the last event) so UIs can stream in O(text) without re-sending what they already have.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, TypeAdapter

from jupyter_agent.core.messages import AnyMessage, AnyPart, Message, MessageError, Part, Session
from jupyter_agent.core.model import ResolvedModel


class SessionCreated(BaseModel):
    type: Literal["session.created"] = "session.created"
    session: Session


class SessionUpdated(BaseModel):
    type: Literal["session.updated"] = "session.updated"
    session: Session


class SessionDeleted(BaseModel):
    type: Literal["session.deleted"] = "session.deleted"
    session_id: str


class SessionCompacted(BaseModel):
    type: Literal["session.compacted"] = "session.compacted"
    session_id: str


class SessionErrored(BaseModel):
    type: Literal["session.error"] = "session.error"
    session_id: str | None
    error: MessageError


class MessageUpdated(BaseModel):
    type: Literal["message.updated"] = "message.updated"
    message: Message


class MessageRemoved(BaseModel):
    type: Literal["message.removed"] = "message.removed"
    session_id: str
    message_id: str


class PartUpdated(BaseModel):
    type: Literal["part.updated"] = "part.updated"
    part: Part
    delta: str | None = None
    """Text appended to ``part.text`` since the previous event for this part."""


class PartRemoved(BaseModel):
    type: Literal["part.removed"] = "part.removed"
    session_id: str
    message_id: str
    part_id: str


PermissionReply = Literal["once", "always", "reject"]


class PermissionRequest(BaseModel):
    """A tool asking the user before it runs (``ask`` rules, doom loop, outside paths)."""

    id: str
    session_id: str
    message_id: str
    call_id: str | None = None
    permission: str
    """The permission asked: a tool name, ``external_directory`` or ``doom_loop``."""
    patterns: list[str] = Field(default_factory=list)
    """What "always" would allow from now on (a command prefix, a path glob)."""
    title: str = ""
    metadata: dict[str, object] = Field(default_factory=dict)


class PermissionAsked(BaseModel):
    type: Literal["permission.asked"] = "permission.asked"
    request: PermissionRequest


class PermissionReplied(BaseModel):
    type: Literal["permission.replied"] = "permission.replied"
    session_id: str
    request_id: str
    reply: PermissionReply


RunKind = Literal["prompt", "compact", "fix"]
RunStatus = Literal["done", "stopped", "failed"]


class RunStarted(BaseModel):
    """A run of a session began (a prompt, a compaction, a fix), whichever front end asked.

    Every view's busy state and gauge follow these two events: the window is the run's own
    model (``model.context``), not the configured one."""

    type: Literal["run.started"] = "run.started"
    session_id: str
    kind: RunKind = "prompt"
    model: ResolvedModel
    local: bool = False
    """The model is served locally (an ``api_base`` server, Ollama…): a zero or unknown
    price is no news there, so views leave the cost out."""


class RunFinished(BaseModel):
    """A run ended: how (``status``), why it failed (one line) or why it stopped early."""

    type: Literal["run.finished"] = "run.finished"
    session_id: str
    kind: RunKind = "prompt"
    status: RunStatus = "done"
    failure: str | None = None
    stop_reason: str | None = None
    """A budget, the step cap or a repeated call ended it (the last answer says so)."""
    queued: bool = False
    """Another run of the session waits to start: the session stays busy."""


class ReviewChanged(BaseModel):
    """The number of staged cell edits of a session waiting for the user changed."""

    type: Literal["review.changed"] = "review.changed"
    session_id: str
    pending: int


Event = Annotated[
    SessionCreated
    | SessionUpdated
    | SessionDeleted
    | SessionCompacted
    | SessionErrored
    | MessageUpdated
    | MessageRemoved
    | PartUpdated
    | PartRemoved
    | PermissionAsked
    | PermissionReplied
    | RunStarted
    | RunFinished
    | ReviewChanged,
    Field(discriminator="type"),
]
AnyEvent = (
    SessionCreated
    | SessionUpdated
    | SessionDeleted
    | SessionCompacted
    | SessionErrored
    | MessageUpdated
    | MessageRemoved
    | PartUpdated
    | PartRemoved
    | PermissionAsked
    | PermissionReplied
    | RunStarted
    | RunFinished
    | ReviewChanged
)
EventAdapter: TypeAdapter[AnyEvent] = TypeAdapter(Event)

__all__ = ["AnyEvent", "AnyMessage", "AnyPart", "Event", "EventAdapter"]
