"""Export a session as JSON (round-trips through import), Markdown, or notebook cells.

Every export is redacted (``core.redaction``): a session stored before a key was known to
be secret still does not carry it into a file that gets shared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    ReasoningPart,
    Session,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
)
from jupyter_agent.core.redaction import redact

FORMAT_VERSION = 1


class SessionExport(BaseModel):
    """The JSON export: enough to rebuild the session (ids are replaced on import)."""

    format: str = "jupyter-agent-session"
    version: int = FORMAT_VERSION
    session: Session
    messages: list[MessageWithParts] = Field(default_factory=list)


def export_json_lines(session: Session, history: Iterable[MessageWithParts]) -> Iterator[str]:
    """The JSON export as chunks, message by message (a huge session is never one string)."""
    head = SessionExport(session=session).model_dump(mode="json", exclude={"messages"})
    yield redact(json.dumps(head)[:-1]) + ', "messages": ['
    for i, m in enumerate(history):
        yield ("," if i else "") + redact(m.model_dump_json())
    yield "]}"


def _tool_block(p: ToolPart) -> str:
    data = json.dumps(p.state.input, ensure_ascii=False)
    lines = [f"**Tool `{p.tool}`** `{data[:200]}`"]
    if isinstance(p.state, ToolStateCompleted):
        output = p.state.output if not p.state.time.compacted else "[Old tool result content cleared]"
        lines.append("```\n" + output[:4000] + ("\n…" if len(output) > 4000 else "") + "\n```")
    elif isinstance(p.state, ToolStateError):
        lines.append(f"> error: {p.state.error}")
    return "\n".join(lines)


def message_markdown(m: MessageWithParts) -> str:
    """One message as Markdown (used for .md exports and notebook cells)."""
    role = "Assistant" if isinstance(m.info, AssistantMessage) else "User"
    if isinstance(m.info, AssistantMessage) and m.info.summary:
        role = "Summary"
    blocks: list[str] = [f"### {role}"]
    for p in m.parts:
        if isinstance(p, TextPart) and not p.ignored and not p.synthetic and p.text.strip():
            blocks.append(p.text)
        elif isinstance(p, ReasoningPart) and p.text.strip():
            blocks.append("<details><summary>Thinking</summary>\n\n" + p.text + "\n\n</details>")
        elif isinstance(p, ToolPart):
            blocks.append(_tool_block(p))
        elif isinstance(p, CompactionPart):
            blocks.append("*— history summarised here —*")
        elif isinstance(p, SubtaskPart):
            blocks.append(f"*@{p.agent}: {p.prompt}*")
    if isinstance(m.info, AssistantMessage) and m.info.error is not None:
        blocks.append(f"> error: {m.info.error.message}")
    return "\n\n".join(blocks)


def export_markdown_lines(session: Session, history: Iterable[MessageWithParts]) -> Iterator[str]:
    yield redact(f"# {session.title}\n\n_Session `{session.id}`_\n")
    for m in history:
        text = message_markdown(m)
        if text.count("\n") or len(text) > len("### Assistant"):
            yield "\n" + redact(text) + "\n"


def notebook_cells(session: Session, history: Iterable[MessageWithParts]) -> list[dict[str, Any]]:
    """Markdown cells carrying the transcript, for inserting into a notebook."""
    # nbformat (and its JSON Schema) loads only for an ipynb export
    import nbformat

    cells = [nbformat.v4.new_markdown_cell(redact(f"## Agent session: {session.title}\n\n`{session.id}`"))]
    cells += [nbformat.v4.new_markdown_cell(redact(message_markdown(m))) for m in history]
    return cells
