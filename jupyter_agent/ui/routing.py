"""Which bus events a session's view shows (pure).

A view shows one session, plus the permission prompts of its sub-agent sessions: a
``task`` sub-agent runs in a child session and its approvals must still reach the user,
or the child waits forever on a prompt nobody sees.
"""

from __future__ import annotations

from jupyter_agent.core.events import (
    AnyEvent,
    MessageRemoved,
    MessageUpdated,
    PartRemoved,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    SessionCreated,
    SessionUpdated,
)


def session_of(event: AnyEvent) -> str | None:
    """The session an event belongs to (None for errors outside any session)."""
    if isinstance(event, (SessionCreated, SessionUpdated)):
        return event.session.id
    if isinstance(event, MessageUpdated):
        return event.message.session_id
    if isinstance(event, PartUpdated):
        return event.part.session_id
    if isinstance(event, PermissionAsked):
        return event.request.session_id
    return event.session_id


def message_of(event: AnyEvent) -> str | None:
    """The message an event is about, if any (to hide what earlier cells showed)."""
    if isinstance(event, MessageUpdated):
        return event.message.id
    if isinstance(event, PartUpdated):
        return event.part.message_id
    if isinstance(event, (PartRemoved, MessageRemoved)):
        return event.message_id
    return None


class SessionFilter:
    """Events for one session, plus permission prompts of its sub-agent sessions."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._children: set[str] = set()

    def accepts(self, event: AnyEvent) -> bool:
        sid = session_of(event)
        if isinstance(event, SessionCreated) and event.session.parent_id is not None:
            parent = event.session.parent_id
            if parent == self.session_id or parent in self._children:
                self._children.add(event.session.id)
            return False
        if isinstance(event, (PermissionAsked, PermissionReplied)):
            return sid == self.session_id or sid in self._children
        return sid == self.session_id
