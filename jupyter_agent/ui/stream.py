"""One view's outgoing stream: bus events → UI messages → a ``send`` callable.

Shared by the cell widget and the side panel so both get the same O(text) traffic:
text goes out as deltas coalesced for ~50 ms with a timer on the kernel's own asyncio
loop (no threads), and a view that renders late says ``ready`` and gets the compact
state once (``backlog.py``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterable
from typing import Any, Literal

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import AnyEvent
from jupyter_agent.core.messages import MessageWithParts
from jupyter_agent.ui.backlog import Backlog
from jupyter_agent.ui.render import FLUSH_INTERVAL_S, DeltaBuffer, Renderer, gauge_message
from jupyter_agent.ui.routing import SessionFilter, message_of
from jupyter_agent.ui.widget_protocol import NoticeMsg, ReplayMsg, StatusMsg, UIMessage, to_wire

NoticeLevel = Literal["info", "warn", "error"]
StatusState = Literal["idle", "busy", "error"]


class ViewStream:
    """Renders one session's events for a view; ``since_id`` hides earlier messages."""

    def __init__(
        self, send: Callable[[dict[str, Any]], None], session_id: str = "", since_id: str = ""
    ) -> None:
        self._send = send
        self.session_id = session_id
        self.since_id = since_id
        self.backlog = Backlog()
        self._lock = threading.RLock()  # the bus may publish from another thread
        self._renderer = Renderer()
        self._filter = SessionFilter(session_id)
        self._buffer = DeltaBuffer(self._emit)
        self._flush_handle: asyncio.TimerHandle | None = None
        self._flush_loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None

    # ------------------------------------------------------------ bus

    def attach(self, bus: Bus, session_id: str) -> None:
        """Listen to ``session_id`` on ``bus`` (replacing any earlier subscription)."""
        self.detach()
        if session_id != self.session_id:
            self.session_id = session_id
            self._filter = SessionFilter(session_id)
        self._unsubscribe = bus.subscribe(self._on_event)

    def detach(self) -> None:
        """Stop listening; what was shown stays (and stays replayable)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def reset(self, session_id: str) -> None:
        """Forget everything shown (the view switches to another session)."""
        with self._lock:
            self._cancel_timer()
            self._buffer.flush()
            self.backlog = Backlog()
            self._renderer = Renderer()
            self.session_id = session_id
            self._filter = SessionFilter(session_id)

    def _on_event(self, event: AnyEvent) -> None:
        if not self._filter.accepts(event):
            return
        message_id = message_of(event)
        if message_id is not None and self.since_id and message_id < self.since_id:
            return
        for message in self._renderer.render(event):
            self.post(message)

    # ------------------------------------------------------------ kernel → browser

    def post(self, message: UIMessage) -> None:
        """Send a UI message now, or within ~50 ms for a text delta (coalesced per part)."""
        with self._lock:
            if self._buffer.push(message):
                self._schedule_flush()

    def flush(self) -> None:
        """Send pending deltas now."""
        with self._lock:
            self._cancel_timer()
            self._buffer.flush()

    def close(self) -> None:
        self.detach()
        self._cancel_timer()

    def _emit(self, message: UIMessage) -> None:
        self.backlog.record(message)
        self._send(to_wire(message))

    def _schedule_flush(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # headless or another thread: nothing would run a timer
            self._buffer.flush()
            return
        if self._flush_handle is not None and self._flush_loop is loop:
            return
        # A timer left on another loop (a finished blocking run's private loop) never fires.
        self._cancel_timer()
        self._flush_loop = loop
        self._flush_handle = loop.call_later(FLUSH_INTERVAL_S, self._on_timer)

    def _on_timer(self) -> None:
        with self._lock:
            self._flush_handle = None
            self._buffer.flush()

    def _cancel_timer(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None

    def replay(self, messages: Iterable[MessageWithParts]) -> None:
        """Show stored messages (a resumed session, a re-displayed view); ignores since_id."""
        for message in self._renderer.history(messages):
            self.post(message)

    def replay_to(self, view: str) -> None:
        """One message with the whole compact state; other views ignore it (not theirs)."""
        with self._lock:
            self._cancel_timer()
            self._buffer.flush()
            self._send(to_wire(ReplayMsg(view=view, messages=self.backlog.replay())))

    def set_gauge(self, tokens: int, percent: int | None, cost: str = "") -> None:
        self.post(gauge_message(tokens, percent, cost))

    def notice(self, text: str, level: NoticeLevel = "info") -> None:
        self.post(NoticeMsg(text=text, level=level))

    def status(self, state: StatusState, text: str = "", model: str | None = None) -> None:
        """``busy`` shows Stop; ``idle`` and ``error`` hide it; ``model``: the one running."""
        self.post(StatusMsg(state=state, text=text, model=model))
