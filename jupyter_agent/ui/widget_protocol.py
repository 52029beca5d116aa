"""The kernel ↔ browser protocol of the live widget (and later the side panel).

Kernel → browser: one :data:`UIMessage` per custom message, discriminated on ``kind``,
serialised by :func:`to_wire` (``None`` fields are left out). Browser → kernel: plain
dicts with ``type`` ``ready`` / ``stop`` / ``approve`` / ``compact`` (see ``widget.py``).
Only compact views travel: tool outputs are capped and text streams as deltas.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _View(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AttachmentView(_View):
    mime: str
    url: str
    """A ``data:`` URL the browser can show without a request."""
    filename: str | None = None


class ProgressView(_View):
    """A running tool's progress as its server reports it (MCP progress notifications)."""

    progress: float
    total: float | None = None
    fraction: float | None = None
    """0–1 when the server gave a total."""
    message: str | None = None


class PartView(_View):
    """A part as shown: big fields capped, bookkeeping fields dropped."""

    id: str
    message_id: str
    type: str
    text: str | None = None
    """text / reasoning: the whole text so far (later growth arrives as deltas)."""
    tool: str | None = None
    status: Literal["pending", "running", "completed", "error"] | None = None
    input: str | None = None
    """One line: the command, the path, the code's first line (≤ 120 chars)."""
    code: str | None = None
    """Tools that run code (python, bash): the whole code, shown highlighted instead of ``input``."""
    lang: str | None = None
    """The language of ``code`` (``python``, ``bash``)."""
    title: str | None = None
    """Tool title, or a subtask's description."""
    output: str | None = None
    """Tool output capped at ~20 KB with a "… (N more chars)" note."""
    error: str | None = None
    """Tool error, or the retry reason."""
    interrupted: bool | None = None
    progress: ProgressView | None = None
    """A running tool's reported progress (message, fraction)."""
    pruned: bool | None = None
    """The model no longer sees this output (SPEC "Prune")."""
    attachments: list[AttachmentView] | None = None
    mime: str | None = None
    url: str | None = None
    filename: str | None = None
    attempt: int | None = None
    next: int | None = None
    """Retry: when (ms since epoch) the next attempt is made."""
    auto: bool | None = None
    overflow: bool | None = None
    agent: str | None = None


class ErrorView(_View):
    name: str
    message: str


class MessageView(_View):
    id: str
    role: Literal["user", "assistant"]
    agent: str
    error: ErrorView | None = None
    summary: bool | None = None
    """True for the compaction summary: shown collapsed under the compaction marker."""
    finish: str | None = None


class PermissionView(_View):
    id: str
    permission: str
    patterns: list[str] = Field(default_factory=list)
    title: str = ""


class PartMsg(_View):
    kind: Literal["part"] = "part"
    part: PartView


class DeltaMsg(_View):
    kind: Literal["delta"] = "delta"
    part_id: str
    field: Literal["text"] = "text"
    text: str
    """Appended to the part's ``text``; the whole text is never re-sent while streaming."""


class MessageMsg(_View):
    kind: Literal["message"] = "message"
    message: MessageView


class RemovedMsg(_View):
    kind: Literal["removed"] = "removed"
    message_id: str
    part_id: str | None = None
    """None: the whole message (and its parts) went away."""


class GaugeMsg(_View):
    kind: Literal["gauge"] = "gauge"
    tokens: int
    percent: int | None = None
    text: str
    level: Literal["ok", "warn", "high"]


class PermissionMsg(_View):
    kind: Literal["permission"] = "permission"
    request: PermissionView


class PermissionDoneMsg(_View):
    kind: Literal["permission_done"] = "permission_done"
    request_id: str
    reply: Literal["once", "always", "reject"]


class CompactedMsg(_View):
    kind: Literal["compacted"] = "compacted"


class StatusMsg(_View):
    kind: Literal["status"] = "status"
    state: Literal["idle", "busy", "error"]
    text: str = ""


class NoticeMsg(_View):
    kind: Literal["notice"] = "notice"
    text: str
    level: Literal["info", "warn", "error"] = "info"


class OlderMsg(_View):
    """The panel shows a session's newest messages first; ``before`` is the oldest shown
    while earlier ones exist (a "Show earlier messages" control asks for them), else None."""

    kind: Literal["older"] = "older"
    session_id: str
    before: str | None = None


class ReplayMsg(_View):
    """Everything a late view missed, sent once to the view that said ``ready``."""

    kind: Literal["replay"] = "replay"
    view: str
    messages: list[dict[str, Any]]


UIMessage = (
    PartMsg
    | DeltaMsg
    | MessageMsg
    | RemovedMsg
    | GaugeMsg
    | PermissionMsg
    | PermissionDoneMsg
    | CompactedMsg
    | StatusMsg
    | NoticeMsg
    | OlderMsg
    | ReplayMsg
)
UIMessageAdapter: TypeAdapter[UIMessage] = TypeAdapter(Annotated[UIMessage, Field(discriminator="kind")])


def to_wire(message: BaseModel) -> dict[str, Any]:
    """The JSON-ready dict sent to the browser (absent means ``None``); panel messages too."""
    return message.model_dump(mode="json", exclude_none=True)
