"""The live widget under an ``%agent`` cell: an anywidget fed by the bus; Stop, approvals back.

Everything goes out as custom messages (never a growing trait: re-sending the whole text
per token costs O(text²)); deltas are coalesced for ~50 ms with a timer on the kernel's
own asyncio loop (no threads). A view that renders late says ``ready`` and gets the
compact state once (``backlog.py``), so traffic stays O(text) per view.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

import anywidget
import traitlets

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import AnyEvent, PermissionReply
from jupyter_agent.core.messages import MessageWithParts
from jupyter_agent.ui.backlog import Backlog
from jupyter_agent.ui.protocol import NoticeMsg, ReplayMsg, StatusMsg, UIMessage, to_wire
from jupyter_agent.ui.render import (
    FLUSH_INTERVAL_S,
    DeltaBuffer,
    Renderer,
    gauge_message,
)
from jupyter_agent.ui.routing import SessionFilter, message_of

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
REPLIES = ("once", "always", "reject")
NoticeLevel = Literal["info", "warn", "error"]
StatusState = Literal["idle", "busy", "error"]


class AgentWidget(anywidget.AnyWidget):
    """Shows one session's activity; ``since_id`` hides messages earlier cells showed."""

    _esm = (STATIC / "widget.js").read_text(encoding="utf-8")
    _css = (STATIC / "widget.css").read_text(encoding="utf-8")
    session_id = traitlets.Unicode("").tag(sync=True)
    can_compact = traitlets.Bool(False).tag(sync=True)
    """Small, fixed-size state only; streamed content never goes through traits."""

    def __init__(
        self,
        bus: Bus | None = None,
        session_id: str = "",
        *,
        on_stop: Callable[[], Any] | None = None,
        on_approve: Callable[[str, PermissionReply], Any] | None = None,
        on_compact: Callable[[], Any] | None = None,
        since_id: str = "",
        busy: bool = True,
    ) -> None:
        super().__init__(session_id=session_id, can_compact=on_compact is not None)
        self.on_stop = on_stop
        self.on_approve = on_approve
        self.on_compact = on_compact
        self.since_id = since_id
        self.backlog = Backlog()
        self._lock = threading.RLock()  # the bus may publish from another thread
        self._renderer = Renderer()
        self._filter = SessionFilter(session_id)
        self._buffer = DeltaBuffer(self._emit)
        self._flush_handle: asyncio.TimerHandle | None = None
        self._flush_loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.on_msg(self._on_front_end)
        if bus is not None:
            self.attach(bus, session_id)
        self.post(StatusMsg(state="busy" if busy else "idle"))

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

    def close(self) -> None:
        """Stop listening and close the widget's comm."""
        self.detach()
        self._cancel_timer()
        super().close()

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

    def _emit(self, message: UIMessage) -> None:
        self.backlog.record(message)
        self.send(to_wire(message))

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
        """Show stored messages (a resumed session, a re-displayed widget); ignores since_id."""
        for message in self._renderer.history(messages):
            self.post(message)

    def set_gauge(self, tokens: int, percent: int | None) -> None:
        self.post(gauge_message(tokens, percent))

    def notice(self, text: str, level: NoticeLevel = "info") -> None:
        self.post(NoticeMsg(text=text, level=level))

    def status(self, state: StatusState, text: str = "") -> None:
        """``busy`` shows Stop; ``idle`` and ``error`` hide it."""
        self.post(StatusMsg(state=state, text=text))

    def done(self) -> None:
        """The run ended: flush, show the idle state, stop listening."""
        self.flush()
        self.status("idle")
        self.detach()

    # ------------------------------------------------------------ browser → kernel

    def _on_front_end(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        """ipywidgets ``on_msg`` callback: one dict per message from a view."""
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "ready":
            self._replay_to(str(content.get("view", "")))
        elif kind == "stop":
            self._call(self.on_stop)
        elif kind == "approve":
            request_id, reply = content.get("request_id"), content.get("reply")
            if isinstance(request_id, str) and reply in REPLIES:
                self._call(self.on_approve, request_id, reply)
        elif kind == "compact":
            self._call(self.on_compact)

    def _replay_to(self, view: str) -> None:
        """One message with the whole compact state; other views ignore it (not theirs)."""
        with self._lock:
            self._cancel_timer()
            self._buffer.flush()
            state = [to_wire(m) for m in self.backlog.replay()]
            self.send(to_wire(ReplayMsg(view=view, messages=state)))

    @staticmethod
    def _call(callback: Callable[..., Any] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # a failing handler must not kill the comm
            log.exception("widget callback failed")
