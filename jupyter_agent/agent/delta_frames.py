"""Streamed text → at most one bus event per part per frame, however fast the model is.

A fast provider (a hosted model on a good day, a local vLLM) sends a chunk every
millisecond; every listener (the live widget, the side panel, the gauge, the store's
coalescer, the CLI) needs the text only as often as a screen can show it. The recorder
keeps a frame's deltas here and publishes them joined: the first delta of a quiet stream
at once (the answer starts without a wait), then at most one event per part per
``FRAME_S``, with a timer on the running loop for a stream that pauses mid-frame. The
recorder publishes what is pending before anything else it writes, so no event overtakes
the text before it, and nothing that arrived is ever dropped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from jupyter_agent.core.messages import AnyPart

FRAME_S = 1 / 30
"""One frame of a 30 Hz screen: text shows as smoothly as it can be read."""


class DeltaFrames:
    """The deltas of the current frame, per part, in arrival order."""

    def __init__(
        self,
        emit: Callable[[AnyPart, str], None],
        interval: float = FRAME_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._emit = emit
        self._interval = interval
        self._clock = clock
        self._pending: dict[str, tuple[AnyPart, list[str]]] = {}
        self._opened: float | None = None
        """When the current frame began; None when no frame is open (the next delta goes at once)."""
        self._timer: asyncio.TimerHandle | None = None

    @property
    def pending(self) -> bool:
        return bool(self._pending)

    def add(self, part: AnyPart, delta: str) -> None:
        """``part`` (which already holds ``delta``) grew by ``delta``: the per-chunk path."""
        entry = self._pending.get(part.id)
        if entry is None:
            self._pending[part.id] = (part, [delta])
        else:
            entry[1].append(delta)
        now = self._clock()
        opened = self._opened
        if opened is None or now - opened >= self._interval:
            self._opened = now
            self._publish()
        elif self._timer is None:
            self._arm(opened + self._interval - now)

    def flush(self) -> None:
        """Publish what is pending now (before any other write, at the end of a step)."""
        if self._pending:
            self._publish()

    def _publish(self) -> None:
        self._cancel()
        pending, self._pending = self._pending, {}
        for part, deltas in pending.values():
            self._emit(part, deltas[0] if len(deltas) == 1 else "".join(deltas))

    def _arm(self, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to run a timer (a synchronous caller): publish now
            self._publish()
            return
        self._timer = loop.call_later(delay, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._pending:
            self._opened = self._clock()
            self._publish()
        else:
            self._opened = None  # a quiet stream: its next delta goes at once

    def _cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
