"""Export a session as JSON (round-trips through import), Markdown, or notebook cells.

Every export is redacted (``core.redaction``): a session stored before a key was known to
be secret still does not carry it into a file that gets shared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import AssistantMessage, MessageWithParts, Session
from jupyter_agent.core.redaction import redact
from jupyter_agent.session.rendering import RECORD, Rendered, render_part

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


def _tool_block(r: Rendered) -> str:
    lines = [f"**Tool `{r.name}`** `{r.summary[:200]}`"]
    if r.status == "completed":
        lines.append("```\n" + r.output[:4000] + ("\n…" if len(r.output) > 4000 else "") + "\n```")
    elif r.status == "error":
        lines.append(f"> error: {r.error}")
    return "\n".join(lines)


def _block(r: Rendered) -> str:
    if r.name:
        return _tool_block(r)
    if not r.text.strip():
        return ""
    return f"<details><summary>{r.label}</summary>\n\n{r.text}\n\n</details>" if r.aside else r.text


def message_markdown(m: MessageWithParts) -> str:
    """One message as Markdown (used for .md exports and notebook cells)."""
    role = "Assistant" if isinstance(m.info, AssistantMessage) else "User"
    if isinstance(m.info, AssistantMessage) and m.info.summary:
        role = "Summary"
    blocks: list[str] = [f"### {role}"]
    shown = (render_part(p, RECORD, m.info) for p in m.parts)
    blocks += [block for r in shown if r is not None and (block := _block(r))]
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
