"""``stream_idle_timeout`` for a stream's chunks with one timer per stream, not one per chunk.

A fast provider sends thousands of chunks a second; ``asyncio.timeout`` around each
``__anext__`` creates, schedules and cancels a timer every time (~25 µs a chunk, several
per cent of a fast answer's CPU). Here the timer is set once and, when it fires, looks at
when the current wait began: a stream that kept sending moves the timer on instead of
being cancelled. Only a wait for the next chunk is ever cancelled, never the consumer's
own work between chunks (the generator is suspended at ``yield`` then).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any


class IdleTimeout(Exception):
    """Nothing came for the idle timeout while waiting for the next chunk.

    Never reaches a front end: the client turns it into a ``ProviderError``."""


class IdleWatch:
    """``await watch.next(iterator)``: the next chunk, or ``IdleTimeout`` after ``seconds``
    of waiting for it. ``close()`` when the stream ends."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._loop = asyncio.get_running_loop()
        self._waiting: asyncio.Task[Any] | None = None
        self._since = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._fired = False

    async def next(self, iterator: AsyncIterator[Any]) -> Any:
        self._since = self._loop.time()
        self._waiting = asyncio.current_task()
        if self._timer is None:
            self._timer = self._loop.call_at(self._since + self.seconds, self._check)
        try:
            return await iterator.__anext__()
        except asyncio.CancelledError:
            if self._fired:
                self._fired = False
                task = self._waiting
                # a cancel of our own: take it back (3.11+) so the task is not left "cancelling"
                if task is not None and hasattr(task, "uncancel") and task.uncancel() > 0:
                    raise  # someone else cancelled it too: theirs wins
                raise IdleTimeout() from None
            raise
        finally:
            self._waiting = None

    def _check(self) -> None:
        self._timer = None
        if self._waiting is None:
            return  # between chunks: the next wait sets the timer again
        due = self._since + self.seconds
        if self._loop.time() < due:
            self._timer = self._loop.call_at(due, self._check)
            return
        self._fired = True
        self._waiting.cancel()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
