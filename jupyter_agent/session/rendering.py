"""What each part shows, decided once: one table from part type to a neutral ``Rendered``.

The static transcript (HTML, Markdown, plain text), the exports, ``jupyter-agent sessions
show``, the CLI's printer and the console stream each format a ``Rendered`` in their own markup
and never look at part types; a new part type is one entry in ``RENDERERS`` (a test checks
that every ``Part`` has one). Where targets differ on purpose, ``View`` says how.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jupyter_agent.context.to_provider import CLEARED
from jupyter_agent.core.messages import (
    AnyMessage,
    AnyPart,
    AssistantMessage,
    Attachment,
    CompactionPart,
    FilePart,
    PatchPart,
    ReasoningPart,
    RetryPart,
    StepFinishPart,
    StepStartPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
)
from jupyter_agent.session.display import CODE_INPUTS, input_summary, without_attachment_notes

SUMMARY_LABEL = "Summary of the session so far"
THINKING_LABEL = "Thinking"
COMPACTED_MARK = "*— history summarised here —*"
CLEARED_NOTE = "[output cleared from the context]"
"""What a reader sees of a pruned output (the model's own placeholder is ``CLEARED``)."""


@dataclass(frozen=True, slots=True)
class View:
    """How much of the record a target shows; the differences between targets are on purpose."""

    record: bool = False
    """An export keeps what the model saw: a call's JSON input, its output with the
    ``[image/png attached]`` notes and the model's placeholder once pruned, a subtask's
    whole prompt. Otherwise a reader's view: a one-line summary, the image itself."""
    system_text: bool = False
    """Also the text the system wrote into the history (continue messages, attachment notes)."""


BRIEF = View()
RECORD = View(record=True)


@dataclass(slots=True)
class Rendered:
    """What one part shows, before any markup. Each target picks the fields it prints.

    Not frozen: one is built per streamed delta, and a frozen dataclass costs 5x to build."""

    text: str = ""
    """Markdown shown as it is: the answer, a marker line; folded under ``label`` if set."""
    label: str = ""
    """What the text is called when a target folds it (thinking, the session's summary)."""
    aside: bool = False
    """Not part of the answer (the model's thinking): plain listings leave it out."""
    marker: bool = False
    """Marks a point in the history (a compaction), also shown among a user's messages."""
    done: bool = False
    """The part is complete: a text's last delta arrived, a call finished."""
    boundary: bool = False
    """A model call starts or ends here: text streamed before it belongs to an earlier call."""
    name: str = ""
    """A tool call: the tool's name (empty for anything else)."""
    summary: str = ""
    """What the call does in one line (the record view: its JSON input)."""
    status: str = ""
    code: str = ""
    """The call's input when it is code (``CODE_INPUTS``), with ``lang``."""
    lang: str = ""
    output: str = ""
    """What the call returned (a placeholder once pruned)."""
    error: str = ""
    """Why the call, or the model call being retried, failed."""
    rejected: bool = False
    """The call was refused (the user's Reject, a ``deny`` rule): an answer, not a failure."""
    attachments: tuple[Attachment, ...] = ()
    attempt: int | None = None
    """A retry: the attempt that failed; ``next`` is when the next one starts (ms since epoch)."""
    next: int = 0


def render_part(part: AnyPart, view: View = BRIEF, info: AnyMessage | None = None) -> Rendered | None:
    """What ``part`` (of message ``info``, when known) shows in ``view``; None: nothing."""
    return RENDERERS[type(part)](part, view, info)


def _text(part: TextPart, view: View, info: AnyMessage | None) -> Rendered | None:
    if part.ignored or (part.synthetic and not view.system_text):
        return None
    summary = isinstance(info, AssistantMessage) and info.summary
    done = part.time is not None and part.time.end is not None
    return Rendered(text=part.text, label=SUMMARY_LABEL if summary else "", done=done)


def _reasoning(part: ReasoningPart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(text=part.text, label=THINKING_LABEL, aside=True, done=part.time.end is not None)


def _tool(part: ToolPart, view: View, info: AnyMessage | None) -> Rendered:
    state = part.state
    summary = json.dumps(state.input, ensure_ascii=False) if view.record else input_summary(state.input)
    key, lang = CODE_INPUTS.get(part.tool, ("", ""))
    code = state.input.get(key) if key else None
    output, error = "", ""
    attachments: tuple[Attachment, ...] = ()
    if isinstance(state, ToolStateCompleted):
        attachments = tuple(state.attachments)
        if state.time.compacted:
            output = CLEARED if view.record else CLEARED_NOTE
        else:
            output = state.output if view.record else without_attachment_notes(state.output, attachments)
    elif isinstance(state, ToolStateError):
        error = state.error
    return Rendered(
        rejected=isinstance(state, ToolStateError) and bool(state.metadata.get("rejected")),
        name=part.tool,
        summary=summary,
        status=state.status,
        done=state.status in ("completed", "error"),
        code=code if isinstance(code, str) else "",
        lang=lang,
        output=output,
        error=error,
        attachments=attachments,
    )


def _file(part: FilePart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(attachments=(Attachment(mime=part.mime, url=part.url, filename=part.filename),))


def _subtask(part: SubtaskPart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(text=f"*@{part.agent}: {part.prompt if view.record else part.description}*")


def _compaction(part: CompactionPart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(text=COMPACTED_MARK, marker=True)


def _retry(part: RetryPart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(error=part.error.message, attempt=part.attempt, next=part.next)


def _step(part: StepStartPart | StepFinishPart, view: View, info: AnyMessage | None) -> Rendered:
    return Rendered(boundary=True)


def _patch(part: PatchPart, view: View, info: AnyMessage | None) -> None:
    return None  # the files an edit changed: for revert, not for reading


Renderer = Callable[[Any, View, AnyMessage | None], Rendered | None]
RENDERERS: dict[type[AnyPart], Renderer] = {
    TextPart: _text,
    ReasoningPart: _reasoning,
    ToolPart: _tool,
    FilePart: _file,
    SubtaskPart: _subtask,
    CompactionPart: _compaction,
    RetryPart: _retry,
    StepStartPart: _step,
    StepFinishPart: _step,
    PatchPart: _patch,
}
"""Part type → its renderer: the one place that switches on part types."""
