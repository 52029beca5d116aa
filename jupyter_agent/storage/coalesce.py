"""Which streaming parts are due for a write: ≤ 1 write per part per ``COALESCE_S``.

A write per token would cost more than the model call, yet a killed kernel should lose
at most ~200 ms of one part. This class only keeps the newest unwritten version of each
part and a timer; the store decides how to write. Its lock is never held during I/O, so
a streaming update never waits for the disk or for another process.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from jupyter_agent.core.messages import AnyPart

COALESCE_S = 0.2
"""At most one write per streaming part per this many seconds (DESIGN "Storage")."""

log = logging.getLogger(__name__)


class Coalescer:
    """Pending part versions, their last write times, and a timer for the next due one."""

    def __init__(self, write_due: Callable[[], None], interval: float = COALESCE_S) -> None:
        self.interval = interval
        self._write_due = write_due
        self._lock = threading.Lock()
        self._pending: dict[str, AnyPart] = {}
        self._last_write: dict[str, float] = {}
        self._timer: threading.Timer | None = None
        self._timer_due = 0.0
        self._stopped = False

    def offer(self, part: AnyPart) -> bool:
        """Keep ``part`` for later if its last write was under ``interval`` ago.

        Returns False when it should be written now (first version, or enough time passed).
        """
        with self._lock:
            last = self._last_write.get(part.id)
            if last is None or time.monotonic() - last >= self.interval:
                return False
            self._pending[part.id] = part
            self._schedule(last + self.interval)
            return True

    def written(self, part: AnyPart, *, final: bool) -> None:
        """Record a direct write; a final part needs no more coalescing state."""
        with self._lock:
            self._pending.pop(part.id, None)
            if final:
                self._last_write.pop(part.id, None)
            else:
                self._last_write[part.id] = time.monotonic()

    def take(self, *, only_due: bool) -> dict[str, AnyPart]:
        """The pending parts to write now (all, or those past their interval)."""
        now = time.monotonic()
        with self._lock:
            return {
                pid: part
                for pid, part in self._pending.items()
                if not only_due or now - self._last_write.get(pid, 0.0) >= self.interval
            }

    def settle(self, taken: dict[str, AnyPart]) -> None:
        """After ``taken`` was committed: drop it unless a newer version arrived."""
        now = time.monotonic()
        with self._lock:
            for pid, part in taken.items():
                if self._pending.get(pid) is part:
                    del self._pending[pid]
                self._last_write[pid] = now

    def forget(self, keep: Callable[[AnyPart], bool]) -> None:
        """Drop pending parts a delete made obsolete."""
        with self._lock:
            for pid in [p for p, part in self._pending.items() if not keep(part)]:
                del self._pending[pid]
                self._last_write.pop(pid, None)

    def pending(self, session_id: str) -> list[AnyPart]:
        """Copies of the unwritten parts of a session, for reads that must see them."""
        with self._lock:
            parts = [p for p in self._pending.values() if p.session_id == session_id]
        return [p.model_copy(deep=True) for p in parts]

    def has_pending(self) -> bool:
        with self._lock:
            return bool(self._pending)

    def stop(self) -> None:
        """No more timers (the store is closing; it writes what is left itself)."""
        with self._lock:
            self._stopped = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

    def _schedule(self, due: float) -> None:
        """Arm the timer for ``due`` (monotonic) unless one fires earlier; lock held."""
        if self._stopped or (self._timer is not None and self._timer_due <= due):
            return
        if self._timer is not None:
            self._timer.cancel()
        timer = threading.Timer(max(0.0, due - time.monotonic()), lambda: self._fire(timer))
        timer.daemon = True
        self._timer, self._timer_due = timer, due
        timer.start()

    def _fire(self, timer: threading.Timer) -> None:
        with self._lock:
            if self._timer is not timer or self._stopped:
                return  # replaced by an earlier-firing timer, or closing
            self._timer = None
        try:
            self._write_due()
        except Exception:  # the parts stay pending; the next update or flush retries
            log.warning("could not write streaming parts", exc_info=True)
            return
        with self._lock:
            if self._pending:
                due = min(self._last_write.get(p, 0.0) for p in self._pending) + self.interval
                self._schedule(due)
