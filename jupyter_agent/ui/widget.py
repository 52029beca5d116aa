"""The live widget under an ``%agent`` cell: an anywidget fed by the bus, Stop and approvals back.

Everything goes through custom messages (never a growing trait: re-sending the whole
text per token costs O(text²)). A view that renders late (a reopened notebook, a second
view) says ``ready`` and gets the backlog replayed once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import AnyEvent
from jupyter_agent.core.messages import MessageWithParts
from jupyter_agent.ui.render import DeltaBuffer, Renderer, UIMessage, gauge_message

STATIC = Path(__file__).parent / "static"


def _session_of(event: AnyEvent) -> str | None:
    for attr in ("session_id",):
        if hasattr(event, attr):
            return str(getattr(event, attr))
    for holder in ("part", "message", "request", "session"):
        obj = getattr(event, holder, None)
        if obj is not None:
            return getattr(obj, "session_id", None) or getattr(obj, "id", None)
    return None


def _message_of(event: AnyEvent) -> str | None:
    part = getattr(event, "part", None)
    if part is not None:
        return str(part.message_id)
    message = getattr(event, "message", None)
    if message is not None:
        return str(message.id)
    return getattr(event, "message_id", None)


class AgentWidget(anywidget.AnyWidget):
    """Shows one session's new activity; ``since_id`` hides what earlier cells showed."""

    _esm = (STATIC / "widget.js").read_text(encoding="utf-8")
    _css = (STATIC / "widget.css").read_text(encoding="utf-8")
    session_id = traitlets.Unicode("").tag(sync=True)

    def __init__(
        self,
        bus: Bus,
        session_id: str,
        *,
        since_id: str = "",
        on_stop: Callable[[], Any] | None = None,
        on_approve: Callable[[str, str], Any] | None = None,
        on_compact: Callable[[], Any] | None = None,
    ) -> None:
        super().__init__(session_id=session_id)
        self.since_id = since_id
        self.on_stop = on_stop
        self.on_approve = on_approve
        self.on_compact = on_compact
        self.backlog: list[UIMessage] = []
        self.sent_bytes = 0
        self._renderer = Renderer()
        self._buffer = DeltaBuffer(self._emit)
        self._flush_handle: asyncio.TimerHandle | None = None
        self._unsubscribe = bus.subscribe(self._on_event)
        self.on_msg(self._on_front_end)
        self.post({"kind": "status", "state": "busy"})

    # ------------------------------------------------------------ kernel → browser

    def _emit(self, message: UIMessage) -> None:
        # a sequence number lets a view skip what it already showed when the backlog replays
        message = {**message, "seq": len(self.backlog)}
        self.backlog.append(message)
        self.send(message)

    def send(self, content: Any, buffers: Any = None) -> None:
        import json

        self.sent_bytes += len(json.dumps(content))
        super().send(content, buffers)

    def post(self, message: UIMessage) -> None:
        """Send a UI message, coalescing deltas (flushed within ~50 ms)."""
        if self._buffer.push(message):
            self._schedule_flush()

    def _schedule_flush(self) -> None:
        if self._flush_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._buffer.flush()
            return

        def flush() -> None:
            self._flush_handle = None
            self._buffer.flush()

        self._flush_handle = loop.call_later(0.05, flush)

    def _on_event(self, event: AnyEvent) -> None:
        if _session_of(event) != self.session_id:
            return
        message_id = _message_of(event)
        if message_id is not None and self.since_id and message_id < self.since_id:
            return
        for message in self._renderer.render(event):
            self.post(message)

    def replay(self, history: list[MessageWithParts]) -> None:
        """Show stored messages (a resumed session) through the same renderer."""
        from jupyter_agent.core.events import MessageUpdated, PartUpdated

        for m in history:
            self._on_event(MessageUpdated(message=m.info))
            for p in m.parts:
                self._on_event(PartUpdated(part=p))

    def set_gauge(self, tokens: int, percent: int | None) -> None:
        self.post(gauge_message(tokens, percent))

    def notice(self, text: str, level: str = "info") -> None:
        self.post({"kind": "notice", "text": text, "level": level})

    def done(self) -> None:
        """The run ended: stop listening, flush, and show the idle state."""
        self.post({"kind": "status", "state": "idle"})
        self._buffer.flush()
        self._unsubscribe()

    # ------------------------------------------------------------ browser → kernel

    def _on_front_end(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        kind = content.get("type")
        if kind == "ready":
            self._buffer.flush()
            for message in self.backlog:
                self.send(message)
        elif kind == "stop" and self.on_stop is not None:
            self.on_stop()
        elif kind == "approve" and self.on_approve is not None:
            self.on_approve(str(content.get("request_id")), str(content.get("reply")))
        elif kind == "compact" and self.on_compact is not None:
            self.on_compact()
