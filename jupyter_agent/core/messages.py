"""Sessions, messages and parts: the whole state of an agent conversation.

State is a replay of messages (seed 002): the loop, the store, the widget and the side
panel all read these values and nothing else. Every shape is a pydantic model so one
``TypeAdapter`` serialises a history for the store, the comm and the exports.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from jupyter_agent.core.clock import now_ms


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


# ---------------------------------------------------------------- sessions


class SessionTime(_Model):
    created: int = Field(default_factory=now_ms)
    updated: int = Field(default_factory=now_ms)
    compacting: int | None = None
    """Set while a compaction runs, so UIs can show it and a second one is refused."""


class RevertState(_Model):
    """A pending revert point: everything after it is hidden until cleanup or unrevert."""

    message_id: str
    part_id: str | None = None
    snapshot: str | None = None
    """Opaque data the revert code needs to undo the revert (unrevert)."""


class Session(_Model):
    id: str
    notebook_path: str | None = None
    """The notebook this session belongs to; ``None`` for headless sessions of a folder."""
    directory: str = ""
    """The working directory the session was started in (the project root)."""
    title: str = ""
    parent_id: str | None = None
    """Set for sub-agent sessions created by the ``task`` tool or an ``@agent`` subtask."""
    time: SessionTime = Field(default_factory=SessionTime)
    revert: RevertState | None = None


# ---------------------------------------------------------------- messages


class CacheTokens(_Model):
    read: int = 0
    write: int = 0


class Tokens(_Model):
    """Token usage of one step; ``input`` excludes cache, ``output`` excludes reasoning."""

    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache: CacheTokens = Field(default_factory=CacheTokens)
    total: int = 0


ErrorName = Literal[
    "aborted", "auth", "api", "rate_limit", "output_length", "context_overflow", "max_steps", "unknown"
]


class MessageError(_Model):
    """Why an assistant message ended badly, in words a user can act on."""

    name: ErrorName
    message: str
    status: int | None = None
    retryable: bool = False
    metadata: dict[str, Any] = Field(default_factory=dict)


class MessageTime(_Model):
    created: int = Field(default_factory=now_ms)
    completed: int | None = None


class UserMessage(_Model):
    role: Literal["user"] = "user"
    id: str
    session_id: str
    time: MessageTime = Field(default_factory=MessageTime)
    agent: str = "build"
    model: str = ""


class AssistantMessage(_Model):
    role: Literal["assistant"] = "assistant"
    id: str
    session_id: str
    parent_id: str
    """The user message this answers."""
    time: MessageTime = Field(default_factory=MessageTime)
    agent: str = "build"
    model: str = ""
    tokens: Tokens = Field(default_factory=Tokens)
    cost: float = 0.0
    cost_unknown: bool = False
    """A step of this message had no price in litellm's map (``cost`` counts the others)."""
    finish: str | None = None
    """The provider's finish reason of the last step (``stop``, ``tool-calls``, …)."""
    error: MessageError | None = None
    summary: bool = False
    """True for the anchored summary written by the compaction agent."""


Message = Annotated[UserMessage | AssistantMessage, Field(discriminator="role")]
MessageAdapter: TypeAdapter[UserMessage | AssistantMessage] = TypeAdapter(Message)


# ---------------------------------------------------------------- parts


class _PartBase(_Model):
    id: str
    session_id: str
    message_id: str


class PartTime(_Model):
    start: int = Field(default_factory=now_ms)
    end: int | None = None


class TextPart(_PartBase):
    type: Literal["text"] = "text"
    text: str = ""
    synthetic: bool = False
    """Written by the system (continue message, attachment notes), not typed by a person."""
    ignored: bool = False
    """Kept for the record but never sent to the model."""
    time: PartTime | None = None


class ReasoningPart(_PartBase):
    type: Literal["reasoning"] = "reasoning"
    text: str = ""
    time: PartTime = Field(default_factory=PartTime)
    provider_metadata: dict[str, Any] | None = None
    """What the provider needs back verbatim (Anthropic ``thinking_blocks`` with signatures,
    redacted thinking); valid only for the model that wrote it."""


class FilePart(_PartBase):
    type: Literal["file"] = "file"
    mime: str
    url: str
    """A ``data:`` URL (inline bytes) or a ``file://`` URL."""
    filename: str | None = None


class Attachment(_Model):
    """Media a tool produced (a plot, a PDF page); becomes a file part for the model."""

    mime: str
    url: str
    filename: str | None = None


class ToolStatePending(_Model):
    status: Literal["pending"] = "pending"
    input: dict[str, Any] = Field(default_factory=dict)
    raw: str = ""
    """The arguments JSON as streamed so far."""


class ToolTimeRunning(_Model):
    start: int = Field(default_factory=now_ms)


class ToolStateRunning(_Model):
    status: Literal["running"] = "running"
    input: dict[str, Any] = Field(default_factory=dict)
    title: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    time: ToolTimeRunning = Field(default_factory=ToolTimeRunning)


class ToolTimeCompleted(_Model):
    start: int
    end: int = Field(default_factory=now_ms)
    compacted: int | None = None
    """Set by prune: the model then sees a placeholder instead of the output."""


class ToolStateCompleted(_Model):
    status: Literal["completed"] = "completed"
    input: dict[str, Any] = Field(default_factory=dict)
    output: str = ""
    title: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    attachments: list[Attachment] = Field(default_factory=list)
    time: ToolTimeCompleted


class ToolTimeError(_Model):
    start: int
    end: int = Field(default_factory=now_ms)


class ToolStateError(_Model):
    status: Literal["error"] = "error"
    input: dict[str, Any] = Field(default_factory=dict)
    error: str
    metadata: dict[str, Any] = Field(default_factory=dict)
    time: ToolTimeError


ToolState = Annotated[
    ToolStatePending | ToolStateRunning | ToolStateCompleted | ToolStateError,
    Field(discriminator="status"),
]


class ToolPart(_PartBase):
    type: Literal["tool"] = "tool"
    call_id: str
    tool: str
    state: ToolState = Field(default_factory=ToolStatePending)
    provider_metadata: dict[str, Any] | None = None
    """litellm's ``provider_specific_fields`` of the call (Gemini thought signatures), sent back as is."""


class StepStartPart(_PartBase):
    type: Literal["step-start"] = "step-start"
    snapshot: str | None = None


class StepFinishPart(_PartBase):
    type: Literal["step-finish"] = "step-finish"
    reason: str
    tokens: Tokens = Field(default_factory=Tokens)
    cost: float = 0.0
    cost_unknown: bool = False
    snapshot: str | None = None


class CompactionPart(_PartBase):
    type: Literal["compaction"] = "compaction"
    auto: bool
    overflow: bool = False
    """True when started because a step ran out of context mid-way (replay the prompt)."""
    tail_start_id: str | None = None
    """First message kept verbatim after the summary; ``None`` means no tail."""
    replay_id: str | None = None
    """Overflow: the prompt the provider refused; summarised without it, re-sent once after."""


class SubtaskPart(_PartBase):
    type: Literal["subtask"] = "subtask"
    prompt: str
    description: str
    agent: str
    model: str | None = None


class RetryError(_Model):
    message: str
    status: int | None = None


class RetryPart(_PartBase):
    type: Literal["retry"] = "retry"
    attempt: int
    error: RetryError
    time: MessageTime = Field(default_factory=MessageTime)
    next: int
    """When (ms since epoch) the next attempt is made."""


class FileChange(_Model):
    """One file as it was before an agent write, so revert can restore it byte-for-byte."""

    path: str
    before: str | None
    """Previous content (base64 for binary files); ``None`` when the file did not exist
    (or when ``before_blob`` holds it)."""
    after: str | None = None
    binary: bool = False
    before_blob: str | None = None
    """The content before, kept in the project's snapshot store (a checkpoint) by its hash."""
    after_blob: str | None = None
    unsaved: str | None = None
    """Why the content before was not kept (larger than the limit …): revert names the file."""
    existed: bool | None = None
    """Checkpoints say whether the file was there before (``None``: read ``before``)."""


class CellChange(_Model):
    """One cell the agent inserted, replaced or deleted in a notebook, as it was before and after
    (nbformat cells kept in the snapshot store by hash), so revert can undo it in the live
    document and unrevert redo it."""

    notebook: str
    """The notebook's absolute path."""
    action: Literal["insert", "replace", "delete"]
    cell_id: str
    index: int
    """Where the cell stood (insert, delete) or stands (replace)."""
    prev_id: str | None = None
    """The cell above it then: a re-inserted cell goes back below it."""
    label: str = ""
    """The cell as the user saw it: ``In [14]``, ``cell 3 (markdown)``."""
    before_blob: str | None = None
    after_blob: str | None = None


class VariableSave(_Model):
    """A kernel variable the agent's code could change, saved before it ran."""

    name: str
    how: Literal["copied", "kept", "absent", "earlier", "unsaved"]
    """copied: a copy is held; kept: the object itself (the code only rebinds the name);
    absent: the name did not exist (revert deletes it); earlier: saved before in this prompt;
    unsaved: could not be saved (``why``)."""
    key: str = ""
    """The save in the kernel's memory (``checkpoint/variables.py``)."""
    why: str | None = None


class PatchPart(_PartBase):
    """What revert needs to undo one tool call: files, notebook cells, kernel variables."""

    type: Literal["patch"] = "patch"
    hash: str = ""
    files: list[FileChange] = Field(default_factory=list)
    cells: list[CellChange] = Field(default_factory=list)
    variables: list[VariableSave] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    """What the checkpoint could not cover (files past the snapshot's limits …), for the report."""


Part = Annotated[
    TextPart
    | ReasoningPart
    | FilePart
    | ToolPart
    | StepStartPart
    | StepFinishPart
    | CompactionPart
    | SubtaskPart
    | RetryPart
    | PatchPart,
    Field(discriminator="type"),
]
AnyPart = (
    TextPart
    | ReasoningPart
    | FilePart
    | ToolPart
    | StepStartPart
    | StepFinishPart
    | CompactionPart
    | SubtaskPart
    | RetryPart
    | PatchPart
)
PartAdapter: TypeAdapter[AnyPart] = TypeAdapter(Part)
AnyMessage = UserMessage | AssistantMessage


class MessageWithParts(_Model):
    """A message and its parts in order: the unit the context code works on."""

    info: Message
    parts: list[Part] = Field(default_factory=list)


SessionAdapter: TypeAdapter[Session] = TypeAdapter(Session)
