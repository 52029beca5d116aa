"""Fork: copy a session's messages before a point into a new session with fresh ids.

Pure: returns the new session and messages; the caller stores them. Parent links and
compaction ``tail_start_id``/``replay_id`` are remapped so the copy is self-consistent.
"""

from __future__ import annotations

import re

from jupyter_agent.core import ids
from jupyter_agent.core.errors import NameNotFound
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    Session,
    SessionTime,
)


class MessageNotFound(NameNotFound):
    """A message id the user typed that the session does not have."""

    missing = "message not found"


def fork_title(title: str, existing: list[str]) -> str:
    """``<title> (fork #N)`` with N one more than the forks of this title so far."""
    base = re.sub(r" \(fork #\d+\)$", "", title)
    numbers = [
        int(m.group(1)) for t in existing if (m := re.match(re.escape(base) + r" \(fork #(\d+)\)$", t))
    ]
    return f"{base} (fork #{max(numbers, default=0) + 1})"


def copy_messages(
    history: list[MessageWithParts], session_id: str, before: str | None = None
) -> list[MessageWithParts]:
    """Messages older than ``before`` (all when None) re-identified for ``session_id``."""
    kept = [m for m in history if before is None or m.info.id < before]
    mapping = {m.info.id: ids.ascending("msg") for m in kept}
    out: list[MessageWithParts] = []
    for m in kept:
        new_id = mapping[m.info.id]
        update: dict[str, object] = {"id": new_id, "session_id": session_id}
        if isinstance(m.info, AssistantMessage):
            update["parent_id"] = mapping.get(m.info.parent_id, m.info.parent_id)
        info = m.info.model_copy(update=update)
        parts = []
        for p in m.parts:
            changes: dict[str, object] = {
                "id": ids.ascending("prt"),
                "session_id": session_id,
                "message_id": new_id,
            }
            if isinstance(p, CompactionPart):
                for key in ("tail_start_id", "replay_id"):
                    if getattr(p, key) is not None:
                        changes[key] = mapping.get(getattr(p, key))
            parts.append(p.model_copy(update=changes))
        out.append(MessageWithParts(info=info, parts=parts))
    return out


def fork_session(
    session: Session, history: list[MessageWithParts], before: str | None, existing_titles: list[str]
) -> tuple[Session, list[MessageWithParts]]:
    new = session.model_copy(
        update={
            "id": ids.ascending("ses"),
            "title": fork_title(session.title, existing_titles),
            "time": SessionTime(),
            "revert": None,
        }
    )
    return new, copy_messages(history, new.id, before)
