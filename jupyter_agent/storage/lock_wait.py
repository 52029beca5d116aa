"""Waiting for a session store another process holds locked: said early, and stoppable.

Another kernel mid-write, or a ``sqlite3`` shell left in a transaction, keeps the store's
write lock. Waiting is right (it is usually a moment), but not silently and not beyond the
user's reach: after ``NOTICE_AFTER_S`` the wait is announced with the holder's pid where
the system tells it (Linux lists POSIX locks in ``/proc/locks``), and Ctrl-C or Stop give
up at once. Nothing is half-written: a write that never got the lock wrote nothing.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

NOTICE_AFTER_S = 1.0
"""How long a wait goes unmentioned (a moment of contention is normal)."""
POLL_MS = 100
"""SQLite's own wait per try: short, so Ctrl-C and Stop are seen between tries."""
WAL_WRITE_LOCK = 120
"""The byte of the ``-shm`` file SQLite locks for the single writer in WAL mode."""


def _to_stderr(message: str) -> None:
    print(f"note: {message}", file=sys.stderr, flush=True)


class LockWaits:
    """Process-wide: how a wait is announced, and the switch that ends waits (Ctrl-C, Stop)."""

    def __init__(self) -> None:
        self.notify: Callable[[str], None] = _to_stderr
        self._sticky = threading.Event()
        self.generation = 0
        """Bumped by ``stop``: a wait that began before gives up."""

    def stop(self, *, sticky: bool = False) -> None:
        """Waits in progress give up (Stop); ``sticky``: every later one too (Ctrl-C of a
        command that is leaving anyway)."""
        self.generation += 1
        if sticky:
            self._sticky.set()

    def given_up(self, since: int) -> bool:
        """True when a wait that began at generation ``since`` must end now."""
        return self._sticky.is_set() or self.generation != since


waits = LockWaits()


def holder(db: Path) -> int | None:
    """The pid holding the store's write lock, when the system tells (else None)."""
    try:
        inodes = {os.stat(Path(f"{db}{suffix}")).st_ino for suffix in ("-shm", "")}
        with open("/proc/locks") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    me = os.getpid()
    for line in lines:
        fields = line.split()
        # "1: POSIX  ADVISORY  WRITE 11326 fe:00:2154578 120 120"
        if len(fields) < 8 or fields[1] not in ("POSIX", "OFDLCK") or fields[3] != "WRITE":
            continue
        try:
            pid, inode = int(fields[4]), int(fields[5].rsplit(":", 1)[1])
        except ValueError:
            continue
        if inode in inodes and pid not in (me, -1):
            return pid
    return None


def _program(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    words = raw.replace(b"\0", b" ").decode(errors="replace").split()  # one line, whatever it ran
    return " ".join(words)[:80]


def locked_message(db: Path) -> str:
    """What the user reads when a write waits: who holds the store, and how to give up."""
    pid = holder(db)
    who = "another process"
    if pid is not None:
        program = _program(pid)
        who = f"another process (pid {pid}{': ' + program if program else ''})"
    return (
        f"The session store {db} is locked by {who}; waiting for it to finish. "
        "Press Ctrl-C (or Stop) to give up: nothing is half-written."
    )
