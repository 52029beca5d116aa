"""Opening one SQLite file safely: pragmas, busy retries, migrations, corrupt files.

Kept apart from the store's API so the rules for "what may happen to the user's file"
read in one place: a newer schema is never touched, a damaged file is moved aside
(never deleted), and "database is locked" is waited out instead of surfacing.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.storage import journal, lock_wait, migrations

BUSY_TIMEOUT_MS = lock_wait.POLL_MS
"""SQLite's own wait for a lock held by another connection, per try: short, so the wait
can be announced and given up between tries (``lock_wait``)."""
BUSY_GIVE_UP_S = 300.0
"""After this long of retries we report which file is stuck instead of hanging forever."""

_BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED (extended codes share the low byte)
_CORRUPT_CODES = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
_READONLY, _IOERR, _FULL, _CANTOPEN = 8, 10, 13, 14
_MAGIC = b"SQLite format 3\x00"
T = TypeVar("T")


class StoreError(JupyterAgentError, RuntimeError):
    """The session store cannot be used; the message names the file and what to do."""


class StoreVersionError(StoreError):
    """The database was written by a newer jupyter-agent; we refuse to touch it."""


class StoreBusyError(StoreError):
    """Another process kept the database locked for minutes (a hung kernel, a held lock)."""


class StoreWaitStopped(StoreError):
    """The user stopped while the store was locked by another process; nothing was written."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"Stopped waiting for the session store {path}, which another process holds "
            "locked; nothing more was written."
        )


def _busy_too_long(path: Path) -> StoreBusyError:
    return StoreBusyError(
        f"{path} stayed locked by another process for {BUSY_GIVE_UP_S:.0f} s "
        "(another kernel or a `jupyter-agent` command may be stuck); close it "
        "and try again."
    )


def _code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_busy(exc: sqlite3.Error) -> bool:
    """True for lock contention, which waiting resolves."""
    code = _code(exc)
    if code is not None:
        return code in _BUSY_CODES
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def is_corrupt(exc: sqlite3.Error) -> bool:
    """True when the file itself is damaged (not a permission or a missing-folder error)."""
    code = _code(exc)
    if code is not None:
        return code in _CORRUPT_CODES
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


def _disk_full(path: Path) -> bool:
    """SQLite reports a full disk as an I/O error when the ``-shm`` file cannot grow."""
    try:
        return shutil.disk_usage(path.parent).free < 1024 * 1024
    except OSError:
        return False


def store_error(path: Path, exc: sqlite3.Error, network: str | None = None) -> StoreError:
    """One sentence for a failure of the file itself: which file, what is wrong, what to do."""
    code = _code(exc)
    text = str(exc).lower()
    if network and journal.no_locks(exc):
        return StoreError(journal.no_locks_message(path, network, exc))
    if code == _FULL or "is full" in text or (code == _IOERR and _disk_full(path)):
        return StoreError(
            f"The disk holding the session store {path} is full ({exc}). Free some space and "
            "run again; what was saved before is kept."
        )
    if path.is_dir():
        return StoreError(f"{path} is a folder, not the session store file: move it away and run again.")
    if code in (_READONLY, _CANTOPEN) or "readonly" in text or "unable to open" in text:
        return StoreError(
            f"Cannot write the session store {path} ({exc}): the file or its folder is "
            f"read-only or missing. Make {path.parent} writable, or run from a folder you can write to."
        )
    if is_corrupt(exc):
        return StoreError(
            f"The session store {path} is damaged ({exc}). Run again: the file will be moved "
            "aside (nothing is deleted) and a new store started."
        )
    if code == _IOERR or "disk i/o" in text:
        return StoreError(f"Cannot read or write the session store {path} ({exc}); check the disk.")
    return StoreError(f"The session store {path} failed: {exc}")


def retry(action: Callable[[], T], path: Path) -> T:
    """Run ``action`` again with jittered backoff while the database is busy.

    ``busy_timeout`` covers most waits, but SQLite returns SQLITE_BUSY at once in some
    cases (WAL recovery, a journal-mode switch racing another opener), so this loop is
    what guarantees callers never see "database is locked".
    """
    started = time.monotonic()
    since = lock_wait.waits.generation
    told = False
    delay = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            waited = time.monotonic() - started
            if lock_wait.waits.given_up(since):
                raise StoreWaitStopped(path) from exc
            if waited > BUSY_GIVE_UP_S:
                raise _busy_too_long(path) from exc
            if not told and waited >= lock_wait.NOTICE_AFTER_S:
                told = True
                lock_wait.waits.notify(lock_wait.locked_message(path))
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.25)


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode: the store issues BEGIN/COMMIT itself."""
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
    )
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _newer(path: Path, version: int) -> StoreVersionError:
    return StoreVersionError(
        f"{path} was written by a newer jupyter-agent (schema version {version}); this "
        f"jupyter-agent supports schema version {migrations.SCHEMA_VERSION}. Upgrade with "
        "`pip install -U jupyter-agent-kernel` to open it. The file was not changed."
    )


def _probe_version(path: Path) -> int:
    """The file's schema version, read through a read-only connection.

    A read-write connection could change a newer kernel's file even without writing:
    closing the last connection checkpoints a leftover WAL into the main file.
    """
    if not path.exists():
        return 0
    if path.with_name(path.name + "-journal").exists():
        journal.roll_back(path, BUSY_TIMEOUT_MS / 1000)
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=1)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        try:
            version = migrations.current_version(conn)  # the first read: fails on a bad file
        except (ValueError, TypeError):
            raw = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()[0]
            raise StoreError(
                f"{path} holds a schema version that is not a number ({raw!r}): it was edited or "
                "written by another program. It was not changed; rename it to start a new "
                "session store."
            ) from None
        if version == 0 and [t for t in tables if not t.startswith("sqlite_")]:
            raise StoreError(
                f"{path} is an SQLite database that jupyter-agent did not create (tables: "
                f"{', '.join(sorted(tables)[:5])}). It was not changed; move it elsewhere to "
                "start a new session store."
            )
        return version
    finally:
        conn.close()


def _quick_check(conn: sqlite3.Connection) -> None:
    """Raise a corrupt-file error when a page inside the file is damaged.

    Opening only reads the schema, so a wrecked interior page would otherwise surface
    later, mid-run, as "disk image is malformed".
    """
    result = conn.execute("PRAGMA quick_check(1)").fetchone()
    if result is None or result[0] != "ok":
        detail = " ".join(str(result[0]).replace("***", " ").split()) if result else "?"  # one line
        raise sqlite3.DatabaseError(f"database disk image is malformed ({detail})")


def _open_once(path: Path, wal: bool = True) -> tuple[sqlite3.Connection, str | None]:
    version = _probe_version(path)
    if version > migrations.SCHEMA_VERSION:
        raise _newer(path, version)
    conn = connect(path)
    try:
        mode = journal.set_mode(conn, wal)
        version = migrations.migrate(conn)
        if version > migrations.SCHEMA_VERSION:  # upgraded by another kernel meanwhile
            raise _newer(path, version)
        _quick_check(conn)
        return conn, journal.kept_wal(path) if not wal and mode == "wal" else None
    except BaseException:
        conn.close()
        raise


def _header_ok(path: Path) -> bool:
    """False for a non-empty file that does not start like a SQLite database.

    Checked before SQLite opens it: on such a file SQLite itself would delete the
    ``-wal``/``-shm`` beside it when the connection closes, losing them silently.
    """
    try:
        with path.open("rb") as f:
            head = f.read(len(_MAGIC))
    except OSError:  # missing, a folder, no permission: SQLite reports those itself
        return True
    return head in (b"", _MAGIC)


def _still_corrupt(path: Path) -> bool:
    """Check again right before moving: another kernel may have replaced the file."""
    if not path.exists():
        return False
    if not _header_ok(path):
        return True
    conn = connect(path)
    try:
        migrations.current_version(conn)
        _quick_check(conn)
    except sqlite3.DatabaseError as exc:
        return is_corrupt(exc)
    finally:
        conn.close()
    return False


def _move_aside(path: Path, reason: str) -> str | None:
    """Rename the damaged file and its -wal/-shm; returns the notice, None if gone."""
    if not _still_corrupt(path):
        return None
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while any(target.with_name(target.name + s).exists() for s in ("", "-wal", "-shm", "-journal")):
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    try:
        path.rename(target)
    except FileNotFoundError:
        return None
    sidecars = []
    for suffix in ("-wal", "-shm", "-journal"):  # a hot rollback journal belongs to the file too
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))
            sidecars.append(suffix)
    extra = f" (with its {' and '.join(sidecars)} files)" if sidecars else ""
    return (
        f"The session database {path} is damaged ({reason}). It was moved to {target}"
        f"{extra} and a new, empty session store was started. Nothing was deleted: "
        f"`sqlite3 {target} .recover` may get old sessions back."
    )


def open_database(path: Path, network: str | None = None) -> tuple[sqlite3.Connection, str | None]:
    """Open ``path`` in WAL mode (the rollback journal on a ``network`` file system) and
    migrate it; returns the connection and a notice.

    The notice is set when a damaged file had to be moved aside and should be shown
    to the user once. Raises :class:`StoreVersionError` for a newer schema.
    """
    wal = network is None
    try:
        if _header_ok(path):
            try:
                return retry(lambda: _open_once(path, wal), path)
            except sqlite3.DatabaseError as exc:
                if not is_corrupt(exc):
                    raise
                reason = str(exc)
        else:
            reason = "file is not a database"
        notice = _move_aside(path, reason)
        conn, kept = retry(lambda: _open_once(path, wal), path)
        return conn, " ".join(n for n in (notice, kept) if n) or None
    except sqlite3.DatabaseError as exc:
        raise store_error(path, exc, network) from exc
    except OSError as exc:  # moving a damaged file aside in a read-only folder
        raise StoreError(f"Cannot use the session store {path}: {exc.strerror or exc}.") from exc


class Database:
    """One connection shared by the kernel loop and the timer thread.

    Every use holds ``lock`` for a whole transaction; SQLite connections are not safe
    for interleaved use, and ``check_same_thread=False`` only lifts the thread check.
    """

    def __init__(self, path: Path, network: str | None = None) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.closed = False
        self.network = network
        """The network file system the file is on (rollback journal, not WAL), or None."""
        self.conn, self.notice = open_database(path, network)

    def _check_open(self) -> None:
        if self.closed:
            raise sqlite3.ProgrammingError(f"the session store {self.path} is closed")

    def transaction(
        self, work: Callable[[sqlite3.Connection], T], on_commit: Callable[[], None] | None = None
    ) -> T:
        """Run ``work`` in one ``BEGIN IMMEDIATE`` transaction, whole again while busy.

        ``on_commit`` runs under the same lock, so no other write slips in between.
        """

        def once() -> T:
            with self.lock:
                self._check_open()
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    result = work(self.conn)
                    self.conn.execute("COMMIT")
                except BaseException:
                    if self.conn.in_transaction:
                        self.conn.execute("ROLLBACK")
                    raise
                if on_commit is not None:
                    on_commit()
                return result

        return self._guarded(once)

    def _guarded(self, once: Callable[[], T]) -> T:
        """Busy waits retried; a full disk, read-only or damaged file becomes a StoreError."""
        try:
            return retry(once, self.path)
        except sqlite3.OperationalError as exc:
            raise store_error(self.path, exc, self.network) from exc
        except sqlite3.DatabaseError as exc:
            if is_corrupt(exc):
                raise store_error(self.path, exc, self.network) from exc
            raise

    def try_write_lock(self) -> bool:
        """Whether the write lock is free now (taken and released at once; no waiting)."""
        with self.lock:
            self._check_open()
            self.conn.execute("PRAGMA busy_timeout=0")
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self.conn.execute("ROLLBACK")
                return True
            except sqlite3.OperationalError as exc:
                if not is_busy(exc):
                    raise store_error(self.path, exc) from exc
                return False
            finally:
                self.conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")

    async def wait_writable(self) -> None:
        """Return once another process no longer holds the write lock, awaiting between tries
        so Stop and Ctrl-C (which cancel the caller) end the wait at once; announced after
        ``NOTICE_AFTER_S``. Runs start with it: a locked store costs them nothing half-done."""
        started = time.monotonic()
        since = lock_wait.waits.generation
        told = False
        while not self.try_write_lock():
            waited = time.monotonic() - started
            if lock_wait.waits.given_up(since):
                raise StoreWaitStopped(self.path)
            if waited > BUSY_GIVE_UP_S:
                raise _busy_too_long(self.path)
            if not told and waited >= lock_wait.NOTICE_AFTER_S:
                told = True
                lock_wait.waits.notify(lock_wait.locked_message(self.path))
            await asyncio.sleep(0.1)

    def read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run queries in one read transaction: one consistent snapshot in WAL mode."""

        def once() -> T:
            with self.lock:
                self._check_open()
                self.conn.execute("BEGIN")
                try:
                    return work(self.conn)
                finally:
                    if self.conn.in_transaction:
                        self.conn.execute("COMMIT")

        return self._guarded(once)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            self.conn.close()
