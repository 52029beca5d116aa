"""The side panel shows a long session a page at a time, newest first.

Opening a session replays its newest ``PAGE`` messages, not all of them: a 10,000-message
session opens as fast as a short one. "Show earlier messages" asks for the page before
the oldest one shown, through the message index (nothing older is read until then).
"""

from __future__ import annotations

from typing import Protocol

from jupyter_agent.core.messages import MessageWithParts

PAGE = 50
"""Messages per page: a few turns with their tool calls."""


class Pages(Protocol):
    """What paging reads (the runtime, or a store)."""

    def message_before(self, session_id: str, before: str | None, count: int = 1) -> str | None: ...
    def messages(
        self, session_id: str, since: str = "", *, until: str | None = None, parts: bool = True
    ) -> list[MessageWithParts]: ...


def page_before(
    store: Pages, session_id: str, before: str | None = None
) -> tuple[list[MessageWithParts], str | None]:
    """The ``PAGE`` messages before ``before`` (None: the newest page), oldest first, and
    the id to ask for the page before them (None: nothing older)."""
    start = store.message_before(session_id, before, PAGE)
    messages = store.messages(session_id, start or "", until=before)
    older = start if start is not None and store.message_before(session_id, start) is not None else None
    return messages, older
