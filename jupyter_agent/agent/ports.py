"""The seams between the loop and the world: the loop talks to these Protocols only.

The SQLite store, the litellm client and the tool registry implement them; tests may
swap in real alternatives (a temporary store, the scripted HTTP server) without mocks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from jupyter_agent.core.messages import AnyMessage, AnyPart, CompactionPart, MessageWithParts, Session


class SessionStore(Protocol):
    """Persistence of sessions, messages and parts (see ``storage/sqlite_store.py``)."""

    def create_session(self, session: Session) -> Session: ...
    def update_session(self, session: Session) -> Session: ...
    def get_session(self, session_id: str) -> Session: ...
    def list_sessions(self, notebook_path: str | None = None) -> list[Session]: ...
    def delete_session(self, session_id: str) -> None: ...

    def update_message(self, message: AnyMessage) -> AnyMessage: ...
    def remove_message(self, session_id: str, message_id: str) -> None: ...

    def update_part(self, part: AnyPart, *, delta: str | None = None, final: bool = True) -> AnyPart:
        """Store a part; ``final=False`` marks a streaming write that may be coalesced."""
        ...

    def remove_part(self, part: AnyPart) -> None: ...
    def flush(self) -> None:
        """Write every coalesced part now (end of step, abort, shutdown)."""
        ...

    def messages(
        self, session_id: str, since: str = "", *, until: str | None = None, parts: bool = True
    ) -> list[MessageWithParts]:
        """Messages with ``since`` ≤ id < ``until``, oldest first (``parts=False``: without parts)."""
        ...

    def compactions(self, session_id: str, until: str | None = None) -> list[CompactionPart]:
        """The compaction parts of messages before ``until``, newest first."""
        ...

    def message_before(self, session_id: str, before: str, count: int = 1) -> str | None: ...
    def unfinished(self, session_id: str) -> list[MessageWithParts]:
        """Open assistant messages and messages with pending/running tool parts (those only)."""
        ...

    def mark_compacted(self, part_ids: Iterable[str], at_ms: int) -> int: ...
