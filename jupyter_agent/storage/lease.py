"""One writer per session: a lease row (holder pid, host, expiry) in the store.

Two ``jupyter-agent run --continue`` on one session would interleave its history, so a
run claims the session first and a second process is refused at once. A holder renews
its leases from a daemon thread every ``RENEW_S``; a lease whose pid is gone (same host)
or whose expiry passed is free, so a killed process never holds a session for long.
Claims are counted per process: prompts queued in one kernel share the lease.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import threading
from dataclasses import dataclass

from jupyter_agent.core.clock import now_ms
from jupyter_agent.storage.database import Database

TTL_MS = 30_000
RENEW_S = 5.0


class SessionBusyError(RuntimeError):
    """Another live process is running this session; the message names its pid."""

    def __init__(self, session_id: str, pid: int, host: str) -> None:
        where = f"process {pid}" if host == socket.gethostname() else f"process {pid} on {host}"
        super().__init__(
            f"session busy in {where}: session {session_id} is running there. Wait for it "
            "to finish (or stop it), or start a new session."
        )
        self.pid = pid


@dataclass(frozen=True)
class Holder:
    pid: int
    host: str
    expires: int


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def is_live(holder: Holder, now: int | None = None) -> bool:
    """A holder counts while its lease is unexpired and (on this host) its pid exists."""
    if holder.expires <= (now_ms() if now is None else now):
        return False
    if holder.host == socket.gethostname():
        return holder.pid == os.getpid() or _pid_alive(holder.pid)
    return True


class Leases:
    """Claims, renews and releases session leases for this process."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._counts: dict[str, int] = {}
        self._guard = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def holder(self, session_id: str) -> Holder | None:
        row = self._db.read(
            lambda c: c.execute(
                "SELECT pid, host, expires FROM session_lease WHERE session_id=?", (session_id,)
            ).fetchone()
        )
        return Holder(int(row[0]), str(row[1]), int(row[2])) if row else None

    def claim(self, session_id: str) -> bool:
        """Take the lease or raise ``SessionBusyError``; True when this is the first claim
        in this process (the caller then closes what a dead holder left running)."""
        with self._guard:
            if self._counts.get(session_id):
                self._counts[session_id] += 1
                return False
            me, host = os.getpid(), socket.gethostname()

            def work(conn: sqlite3.Connection) -> None:
                row = conn.execute(
                    "SELECT pid, host, expires FROM session_lease WHERE session_id=?", (session_id,)
                ).fetchone()
                if row is not None:
                    other = Holder(int(row[0]), str(row[1]), int(row[2]))
                    if (other.pid, other.host) != (me, host) and is_live(other):
                        raise SessionBusyError(session_id, other.pid, other.host)
                conn.execute(
                    "INSERT INTO session_lease(session_id, pid, host, expires) VALUES (?,?,?,?)"
                    " ON CONFLICT(session_id) DO UPDATE SET pid=excluded.pid, host=excluded.host,"
                    " expires=excluded.expires",
                    (session_id, me, host, now_ms() + TTL_MS),
                )

            self._db.transaction(work)
            self._counts[session_id] = 1
            self._start_renewing()
            return True

    def release(self, session_id: str) -> None:
        with self._guard:
            count = self._counts.get(session_id, 0) - 1
            if count > 0:
                self._counts[session_id] = count
                return
            self._counts.pop(session_id, None)
            with contextlib.suppress(sqlite3.Error):
                self._db.transaction(
                    lambda c: c.execute(
                        "DELETE FROM session_lease WHERE session_id=? AND pid=? AND host=?",
                        (session_id, os.getpid(), socket.gethostname()),
                    )
                )

    def release_all(self) -> None:
        self._stop.set()
        for session_id in list(self._counts):
            self._counts[session_id] = 1
            self.release(session_id)

    def stale(self) -> list[str]:
        """Sessions whose lease is held by nobody alive (a killed run): to clean up."""
        rows = self._db.read(lambda c: c.execute("SELECT session_id, pid, host, expires FROM session_lease").fetchall())
        now = now_ms()
        return [r[0] for r in rows if not is_live(Holder(int(r[1]), str(r[2]), int(r[3])), now)]

    def drop(self, session_id: str) -> None:
        """Remove a stale lease (after its leftovers were closed)."""
        self._db.transaction(lambda c: c.execute("DELETE FROM session_lease WHERE session_id=?", (session_id,)))

    def _renew(self) -> None:
        while not self._stop.wait(RENEW_S):
            with self._guard:
                held = list(self._counts)
            if not held:
                continue
            with contextlib.suppress(sqlite3.Error):
                expires = now_ms() + TTL_MS
                self._db.transaction(
                    lambda c: c.executemany(
                        "UPDATE session_lease SET expires=? WHERE session_id=? AND pid=?",
                        [(expires, sid, os.getpid()) for sid in held],
                    )
                )

    def _start_renewing(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._renew, name="jupyter-agent-lease", daemon=True)
            self._thread.start()
