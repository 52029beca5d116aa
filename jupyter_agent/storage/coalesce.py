"""Which streaming parts are due for a write: ≤ 1 write per part per ``COALESCE_S``.

A write per token would cost more than the model call, yet a killed kernel should lose
at most ~200 ms of one part. This class keeps the newest unwritten version of each part
and one writer thread (started on the first streaming write) that asks the store to write
the due ones; the store decides how. A streaming update only hands its part over: it
never waits for the disk, for another process's lock, or for a thread to start. The lock
here is never held during I/O.
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
    """Pending part versions, their last write times, and the writer thread that writes them."""

    def __init__(self, write_due: Callable[[], None], interval: float = COALESCE_S) -> None:
        self.interval = interval
        self._write_due = write_due
        self._cond = threading.Condition(threading.Lock())
        self._pending: dict[str, AnyPart] = {}
        self._last_write: dict[str, float] = {}
        self._writer: threading.Thread | None = None
        self._retry_at = 0.0
        """After a failed write: not before then (the parts stay pending)."""
        self._stopped = False

    def offer(self, part: AnyPart) -> None:
        """Keep ``part`` for the writer thread: a new part is written at once, a growing one
        ≤ ``interval`` after its last write (the caller writes nothing itself)."""
        with self._cond:
            fresh = part.id not in self._pending
            self._pending[part.id] = part
            if self._stopped:
                return
            if self._writer is None:
                self._writer = threading.Thread(target=self._run, name="jupyter-agent-store", daemon=True)
                self._writer.start()
            elif fresh:
                self._cond.notify()  # it may sleep longer than this part may wait

    def written(self, part: AnyPart, *, final: bool) -> None:
        """Record a direct write; a final part needs no more coalescing state."""
        with self._cond:
            self._pending.pop(part.id, None)
            if final:
                self._last_write.pop(part.id, None)
            else:
                self._last_write[part.id] = time.monotonic()

    def take(self, *, only_due: bool) -> dict[str, AnyPart]:
        """The pending parts to write now (all, or those past their interval)."""
        now = time.monotonic()
        with self._cond:
            return {
                pid: part
                for pid, part in self._pending.items()
                if not only_due or now - self._last_write.get(pid, -self.interval) >= self.interval
            }

    def settle(self, taken: dict[str, AnyPart]) -> None:
        """After ``taken`` was committed: drop it unless a newer version arrived."""
        now = time.monotonic()
        with self._cond:
            for pid, part in taken.items():
                if self._pending.get(pid) is part:
                    del self._pending[pid]
                self._last_write[pid] = now

    def forget(self, keep: Callable[[AnyPart], bool]) -> None:
        """Drop pending parts a delete made obsolete."""
        with self._cond:
            for pid in [p for p, part in self._pending.items() if not keep(part)]:
                del self._pending[pid]
                self._last_write.pop(pid, None)

    def pending(self, session_id: str) -> list[AnyPart]:
        """Copies of the unwritten parts of a session, for reads that must see them."""
        with self._cond:
            parts = [p for p in self._pending.values() if p.session_id == session_id]
        return [p.model_copy(deep=True) for p in parts]

    def has_pending(self) -> bool:
        with self._cond:
            return bool(self._pending)

    def stop(self) -> None:
        """No more background writes (the store is closing; it writes what is left itself)."""
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _next_due(self) -> float | None:
        """When the earliest pending part is due (monotonic); lock held."""
        if not self._pending:
            return None
        last = self._last_write
        due = min(last.get(pid, -self.interval) for pid in self._pending) + self.interval
        return max(due, self._retry_at)

    def _run(self) -> None:
        """The writer thread: sleep until a part is due, have the store write the due ones."""
        with self._cond:
            while not self._stopped:
                due = self._next_due()
                wait = None if due is None else due - time.monotonic()
                if wait is None or wait > 0:
                    self._cond.wait(wait)
                    continue
                self._cond.release()
                try:
                    self._write_due()
                    failed = False
                except Exception:  # the parts stay pending; retried after an interval, or flushed
                    log.warning("could not write streaming parts", exc_info=True)
                    failed = True
                finally:
                    self._cond.acquire()
                self._retry_at = time.monotonic() + self.interval if failed else 0.0
