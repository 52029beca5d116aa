"""The seams between the loop and the world: the loop talks to these Protocols only.

The SQLite store, the litellm client and the tool registry implement them; tests may
swap in real alternatives (a temporary store, the scripted HTTP server, the in-process
scripted model of ``tests/scripted_model.py``) without mocks.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from jupyter_agent.core.bus import EventSink as EventSink  # defined with the bus (core)
from jupyter_agent.core.completion_call import CompletionCall
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.messages import AnyMessage, AnyPart, CompactionPart, MessageWithParts, Session
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.stream_events import StreamEvent
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

    def call_costs(self, session_id: str | None = None, *, kind: str | None = None) -> dict[str, CostTotal]:
        """What those calls cost, per session (``kind``: only those, e.g. inline completions)."""
        ...

    def subtask_costs(self, session_id: str) -> CostTotal:
        """What the sub-agent sessions run for the session cost (their calls and titles)."""
        ...


class ModelClient(Protocol):
    """A model the loop can call (shaped like pydantic-ai's ``Model``): the litellm adapter
    (``providers/litellm_client.py``) or the in-process scripted model of the tests.

    Failures arrive as typed ``ProviderError``s (``core/provider_errors.py``). A client
    tries once: the agent layer retries the retryable ones (``agent/retrying.py`` wraps any
    client). ``abort`` set → ``AbortedError`` at the next chunk.
    """

    def request_stream(
        self, request: ModelRequest, *, abort: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """One answer, streamed as our events and ended by ``finish-step``."""
        ...

    async def request(self, request: ModelRequest) -> tuple[str, float | None]:
        """One answer in one piece (session titles) and what it cost (None: no price)."""
        ...


@runtime_checkable
class CompletionClient(Protocol):
    """A model for inline completions in cells: ``providers/inline_client.py`` (litellm) or
    the tests' scripted model. Tried once (a failed suggestion is not worth a retry)."""

    def complete_stream(self, call: CompletionCall) -> AsyncGenerator[StreamEvent, None]:
        """The suggestion as text deltas, ended by ``finish-step`` (its usage and cost); closing
        the generator early aborts the request."""
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
    decisions: list[dict[str, Any]] | None = None
    """When set, each question's outcome is appended (the audit trail: allowed, asked → the
    answer, or denied, with the rule that decided)."""


class PermissionAsker(Protocol):
    """Answers permission questions: rules, remembered answers, else the user (see ``permissions.py``)."""

    async def ask(self, who: PermissionContext, question: PermissionQuestion) -> None:
        """Return when allowed; raise ``PermissionDenied`` with a reason the model can read."""
        ...
