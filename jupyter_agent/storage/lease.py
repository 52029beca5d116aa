"""One writer per session: a lease row (holder pid, host, expiry) in the store.

Two ``jupyter-agent run --continue`` on one session would interleave its history, so a
run claims the session first and a second process is refused at once. A holder renews
its leases from a daemon thread every ``RENEW_S``; a lease whose pid is gone (same host)
is free at once, so a killed process never holds a session. An expired lease whose
process still runs since before its last renewal is held: a paused kernel, or one whose
renewal thread waited behind a long computation holding the GIL, must not have its
session taken and interleaved when it resumes (the refusal says how long it has been
silent). A process that started after that renewal reused the pid: the lease is free.
Claims are counted per process: prompts queued in one kernel share the lease.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import sqlite3
import threading
from dataclasses import dataclass

from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.processes import pid_alive
from jupyter_agent.storage.database import Database

TTL_MS = 30_000
RENEW_S = 5.0
START_SLACK_MS = 2_000
"""The boot time in ``/proc/stat`` has whole seconds: a start this close to a renewal counts as before."""


class SessionBusyError(JupyterAgentError, RuntimeError):
    """Another live process is running this session; the message names its pid."""

    def __init__(self, session_id: str, pid: int, host: str, silent_s: int = 0) -> None:
        where = f"process {pid}" if host == socket.gethostname() else f"process {pid} on {host}"
        stuck = (
            f" It has not renewed its claim for {silent_s} s: if it is stuck, stop it (kill {pid})."
            if silent_s
            else ""
        )
        super().__init__(
            f"session busy in {where}: session {session_id} is running there. Wait for it "
            f"to finish (or stop it), or start a new session.{stuck}"
        )
        self.pid = pid


@dataclass(frozen=True)
class Holder:
    pid: int
    host: str
    expires: int


def _started_ms(pid: int) -> float | None:
    """When ``pid`` started (ms since the epoch) from ``/proc``; None where unknown or a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()  # after "pid (name)": field 3 onwards
        with open("/proc/stat") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith("btime "))
        if fields[0] == "Z":
            return None
        return (boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")) * 1000  # field 22: start time
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def is_live(holder: Holder, now: int | None = None) -> bool:
    """A holder on another host counts until its lease expires; on this host while its pid
    runs and, once the lease expired, only if it ran already at its last renewal."""
    now = now_ms() if now is None else now
    if holder.host != socket.gethostname():
        return holder.expires > now
    if holder.pid != os.getpid() and not pid_alive(holder.pid):
        return False
    if holder.expires > now:
        return True
    started = _started_ms(holder.pid)
    return started is not None and started <= holder.expires - TTL_MS + START_SLACK_MS


def _extend(held: list[str], conn: sqlite3.Connection) -> None:
    expires = now_ms() + TTL_MS
    conn.executemany(
        "UPDATE session_lease SET expires=? WHERE session_id=? AND pid=?",
        [(expires, sid, os.getpid()) for sid in held],
    )


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
                    now = now_ms()
                    if (other.pid, other.host) != (me, host) and is_live(other, now):
                        renewed = other.expires - TTL_MS
                        silent = (now - renewed) // 1000 if other.expires <= now else 0
                        raise SessionBusyError(session_id, other.pid, other.host, silent)
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
        rows = self._db.read(
            lambda c: c.execute("SELECT session_id, pid, host, expires FROM session_lease").fetchall()
        )
        now = now_ms()
        return [r[0] for r in rows if not is_live(Holder(int(r[1]), str(r[2]), int(r[3])), now)]

    def drop(self, session_id: str) -> None:
        """Remove a stale lease (after its leftovers were closed)."""
        self._db.transaction(
            lambda c: c.execute("DELETE FROM session_lease WHERE session_id=?", (session_id,))
        )

    def _renew(self) -> None:
        while not self._stop.wait(RENEW_S):
            with self._guard:
                held = list(self._counts)
            if not held:
                continue
            with contextlib.suppress(sqlite3.Error):
                self._db.transaction(functools.partial(_extend, held))

    def _start_renewing(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._renew, name="jupyter-agent-lease", daemon=True)
            self._thread.start()
