"""The kernel ↔ browser protocol of the live widget and the side panel's stream.

Kernel → browser: one :data:`UIMessage` per custom message, discriminated on ``kind``,
serialised by :func:`to_wire` (``None`` fields are left out); a part travels as one
:data:`PartView` per part type, discriminated on ``type``. ``ui/tsgen.py`` writes the
TypeScript the renderer (``labextension/src/widget/``) is typed on. Browser → kernel: plain
dicts with ``type`` ``ready`` / ``stop`` / ``approve`` / ``compact`` (see ``widget.py``).
Only compact views travel: tool outputs are capped and text streams as deltas.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypeAliasType


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


class _PartViewBase(_View):
    id: str
    message_id: str


class TextView(_PartViewBase):
    type: Literal["text"] = "text"
    text: str
    """The whole text so far (later growth arrives as deltas)."""


class ReasoningView(_PartViewBase):
    type: Literal["reasoning"] = "reasoning"
    text: str
    """The whole text so far (later growth arrives as deltas)."""


class ToolView(_PartViewBase):
    """A tool call: its state's fields, flat (``status`` says which are set)."""

    type: Literal["tool"] = "tool"
    tool: str
    status: Literal["pending", "running", "completed", "error"]
    call_id: str | None = None
    """The model's id of the call: an approval it waits for names it (``PermissionView``)."""
    input: str
    """One line: the command, the path, the code's first line (≤ 120 chars)."""
    code: str | None = None
    """Tools that run code (python, bash): the whole code, shown highlighted instead of ``input``."""
    lang: str | None = None
    """The language of ``code`` (``python``, ``bash``)."""
    title: str | None = None
    """running / completed: the tool's title."""
    output: str | None = None
    """running / completed: output capped at ~20 KB with a "… (N more chars)" note."""
    progress: ProgressView | None = None
    """running: the reported progress (message, fraction)."""
    attachments: list[AttachmentView] | None = None
    """completed: media the tool produced."""
    pruned: bool | None = None
    """completed: the model no longer sees this output (SPEC "Prune")."""
    error: str | None = None
    """error: what went wrong, capped like ``output``."""
    interrupted: bool | None = None
    """error: the user stopped the run while the tool ran."""
    rejected: bool | None = None
    """error: refused (the user's Reject, a ``deny`` rule): an answer, not a failure."""


class FileView(_PartViewBase):
    type: Literal["file"] = "file"
    mime: str
    url: str
    filename: str | None = None


class RetryView(_PartViewBase):
    type: Literal["retry"] = "retry"
    attempt: int
    error: str
    """Why the attempt failed."""
    next: int
    """When (ms since epoch) the next attempt is made."""


class CompactionView(_PartViewBase):
    """Where the history was summarised (the marker the summary folds into)."""

    type: Literal["compaction"] = "compaction"
    auto: bool
    overflow: bool


class SubtaskView(_PartViewBase):
    type: Literal["subtask"] = "subtask"
    agent: str
    title: str
    """The subtask's description."""


AnyPartView = TextView | ReasoningView | ToolView | FileView | RetryView | CompactionView | SubtaskView
PartView = TypeAliasType(
    "PartView",
    Annotated[
        AnyPartView,
        Field(
            discriminator="type",
            description="A part as shown: one view per type of `core.messages.Part` the UI shows\n"
            "(step start/finish and patches are bookkeeping), big fields capped.",
        ),
    ],
)


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
    call_id: str | None = None
    """The tool call that waits for this answer (its card says "waiting for approval")."""
    patterns: list[str] = Field(default_factory=list)
    title: str = ""
    diff: str | None = None
    """What the call would change (a unified diff: a file, a cell's source)."""
    always: str | None = None
    """What "Always" allows, in words (``edits to the cells of analysis.ipynb``); for this session."""


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
    """The whole line: ``usage`` then `` · `` and ``cost`` when there is one."""
    level: Literal["ok", "warn", "high"]
    usage: str = ""
    """``12,345 tokens · 7% used``."""
    cost: str | None = None
    """What the prompt and the session cost (None: nothing worth saying, a local model)."""


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
    model: str | None = None
    """The model the run uses (from its ``RunStarted``): the header names it."""


class NoticeMsg(_View):
    kind: Literal["notice"] = "notice"
    text: str
    level: Literal["info", "warn", "error"] = "info"


class ReviewMsg(_View):
    """Staged cell edits of this session still waiting for the user: Accept all / Reject all."""

    kind: Literal["review"] = "review"
    pending: int


class RevertedMsg(_View):
    """What a revert or unrevert did (the panel's Undo from here), with Unrevert after a revert."""

    kind: Literal["reverted"] = "reverted"
    text: str
    unrevert: bool = False


class OlderMsg(_View):
    """The panel shows a session's newest messages first; ``before`` is the oldest shown
    while earlier ones exist (a "Show earlier messages" control asks for them), else None."""

    kind: Literal["older"] = "older"
    session_id: str
    before: str | None = None


class HiddenStateMsg(_View):
    """An agent run left state that no cell reproduces (``repro/tracker.py``): the names in a
    sentence, and "Add as cell", which inserts ``code`` below the run's cell. Sent again
    with ``added`` once the code is a cell."""

    kind: Literal["hidden_state"] = "hidden_state"
    run: str
    """The run's key: what an ``add_cell`` request names."""
    text: str
    """The sentence: ``sales`` was changed by the agent's code, not by a cell."""
    names: list[str]
    code: str
    """The code of the calls that set them, in order: what "Add as cell" inserts."""
    cell_id: str | None = None
    """The run's ``%agent`` cell (the code goes below it); None: a panel prompt."""
    added: str | None = None
    """The id of the cell the code was added as."""


class VerifyRowView(_View):
    label: str
    """``cell 4 [3]``: position in the notebook and the saved execution count."""
    status: Literal["ran", "failed", "differs", "skipped", "not run"]
    detail: str = ""


class VerifyMsg(_View):
    """A verification started from the side panel (``/verify``): progress, then the table."""

    kind: Literal["verify"] = "verify"
    state: Literal["running", "done", "stopped", "failed"]
    text: str
    """What runs now, or the verdict (or why it could not run)."""
    rows: list[VerifyRowView] = Field(default_factory=list)
    reproducible: bool | None = None


AnyLiveMessage = (
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
    | ReviewMsg
    | RevertedMsg
    | OlderMsg
    | HiddenStateMsg
    | VerifyMsg
)
LiveMessage = TypeAliasType(
    "LiveMessage",
    Annotated[
        AnyLiveMessage,
        Field(
            discriminator="kind",
            description="What the kernel sends as it happens; a replay holds these, never a replay.",
        ),
    ],
)


class ReplayMsg(_View):
    """Everything a late view missed, sent once to the view that said ``ready``."""

    kind: Literal["replay"] = "replay"
    view: str
    messages: list[LiveMessage]


UIMessage = AnyLiveMessage | ReplayMsg
UIMessageAdapter: TypeAdapter[UIMessage] = TypeAdapter(Annotated[UIMessage, Field(discriminator="kind")])


def to_wire(message: BaseModel) -> dict[str, Any]:
    """The JSON-ready dict sent to the browser (absent means ``None``); panel messages too."""
    return message.model_dump(mode="json", exclude_none=True)
