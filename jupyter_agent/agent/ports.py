"""The seams between the loop and the world: the loop talks to these Protocols only.

The SQLite store, the litellm client and the tool registry implement them; tests may
swap in real alternatives (a temporary store, the scripted HTTP server, the in-process
scripted model of ``tests/scripted_model.py``) without mocks.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from jupyter_agent.core.bus import EventSink as EventSink  # defined with the bus (core)
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.messages import AnyMessage, AnyPart, CompactionPart, MessageWithParts, Session
from jupyter_agent.core.stream_events import StreamEvent
from jupyter_agent.providers.retry import RetryCallback
from jupyter_agent.tools.base import PermissionQuestion


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

    def message_before(self, session_id: str, before: str | None, count: int = 1) -> str | None:
        """The ``count``-th message id before ``before`` (``None``: from the newest itself)."""
        ...

    def last_message(self, session_id: str) -> MessageWithParts | None:
        """The newest message (None: no messages), without reading the session."""
        ...

    def unfinished(self, session_id: str) -> list[MessageWithParts]:
        """Open assistant messages and messages with pending/running tool parts (those only)."""
        ...

    def mark_compacted(self, part_ids: Iterable[str], at_ms: int) -> int: ...

    def add_call_cost(self, session_id: str, kind: str, model: str, usd: float | None) -> None:
        """A model call made for the session outside its messages (its title)."""
        ...

    def call_costs(self, session_id: str | None = None) -> dict[str, CostTotal]:
        """What those calls cost, per session."""
        ...

    def subtask_costs(self, session_id: str) -> CostTotal:
        """What the sub-agent sessions run for the session cost (their calls and titles)."""
        ...


class ModelClient(Protocol):
    """One model step as our stream events (``providers/litellm_client.py`` implements it).

    Failures arrive as typed ``ProviderError``s; retryable ones are retried inside
    ``stream_with_retry`` (``on_retry`` tells the loop, ``attempt-restart`` drops partial
    output). ``abort`` set → ``AbortedError`` at the next chunk or during a retry wait.
    """

    def stream_with_retry(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
        abort: asyncio.Event | None = None,
        on_retry: RetryCallback | None = None,
        extra: dict[str, Any] | None = None,
    ) -> AsyncIterator[StreamEvent]: ...

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        api_base: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
    ) -> tuple[str, float | None]:
        """One non-streaming answer (session titles) and what it cost (None: no price)."""
        ...


@dataclass(frozen=True)
class PermissionContext:
    """Who asks: the session, agent and tool call a permission question comes from."""

    session_id: str
    agent: str
    """Whose rules apply (plan and explore are read-only); always named, never assumed."""
    message_id: str = ""
    call_id: str | None = None
    interactive: bool = False
    """The run can wait for a user's answer (a widget or a panel shows it); else rules decide."""


class PermissionAsker(Protocol):
    """Answers permission questions: rules, remembered answers, else the user (see ``permissions.py``)."""

    async def ask(self, who: PermissionContext, question: PermissionQuestion) -> None:
        """Return when allowed; raise ``PermissionDenied`` with a reason the model can read."""
        ...
