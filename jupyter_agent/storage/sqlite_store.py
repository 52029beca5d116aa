"""The session store: SQLite next to the notebook, safe for two kernels and a SIGKILL.

Every write is one ``BEGIN IMMEDIATE`` transaction in WAL mode, so a killed kernel loses
at most the unflushed tail of one streaming part, never a completed one. Streaming parts
are coalesced (≤ 1 write per ``COALESCE_S`` per part, plus the final write) because a
write per token would cost more than the model call.
"""

from __future__ import annotations

import difflib
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AnyMessage,
    AnyPart,
    MessageAdapter,
    MessageWithParts,
    PartAdapter,
    Session,
    ToolPart,
    ToolStateCompleted,
)
from jupyter_agent.storage import migrations
from jupyter_agent.storage.paths import DB_NAME, store_dir

COALESCE_S = 0.2
BUSY_TIMEOUT_MS = 10_000
T = TypeVar("T")


class StoreVersionError(RuntimeError):
    """The database was written by a newer jupyter-agent; we refuse to touch it."""


class SessionNotFound(KeyError):
    """An unknown session id; the message lists close matches."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "session not found"


class SqliteStore:
    """Implements ``agent.ports.SessionStore`` on one SQLite file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.notice: str | None = None
        """Something the user must be told once (e.g. a corrupt file was moved aside)."""
        self.writes = 0
        """Part rows written; lets tests and benchmarks see coalescing work."""
        self._lock = threading.RLock()
        self._pending: dict[str, AnyPart] = {}
        self._last_write: dict[str, float] = {}
        self._timer: threading.Timer | None = None
        self._conn = self._open()

    @classmethod
    def for_directory(cls, folder: Path) -> SqliteStore:
        return cls(store_dir(Path(folder)) / DB_NAME)

    @classmethod
    def for_notebook(cls, notebook: Path) -> SqliteStore:
        return cls.for_directory(Path(notebook).resolve().parent)

    # ------------------------------------------------------------ opening

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, isolation_level=None
        )
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
            version = self._retry(lambda: self._prepare(conn))
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                raise
            moved = self._move_aside(exc)
            conn = self._connect()
            version = self._prepare(conn)
            self.notice = moved
        if version > migrations.SCHEMA_VERSION:
            conn.close()
            raise StoreVersionError(
                f"{self.path} was written by a newer jupyter-agent (schema version {version}); "
                f"this version supports up to {migrations.SCHEMA_VERSION}. Upgrade with "
                "`pip install -U jupyter-agent`. The file was not changed."
            )
        return conn

    def _prepare(self, conn: sqlite3.Connection) -> int:
        """Check the file is a database, switch to WAL and migrate; returns its version."""
        conn.execute("PRAGMA schema_version").fetchone()
        version = self._version_of(conn)
        if version > migrations.SCHEMA_VERSION:
            return version
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        if version < migrations.SCHEMA_VERSION:
            migrations.migrate(conn, version)
        return migrations.SCHEMA_VERSION

    @staticmethod
    def _version_of(conn: sqlite3.Connection) -> int:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
        ).fetchone()
        if not exists:
            return 0
        row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _move_aside(self, exc: Exception) -> str:
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        self.path.rename(target)
        for suffix in ("-wal", "-shm"):
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                side.rename(target.with_name(target.name + suffix))
        return (
            f"The session store {self.path} could not be read ({exc}). It was moved to "
            f"{target} and a new, empty store was started. Nothing was deleted."
        )

    # ------------------------------------------------------------ plumbing

    def _retry(self, action: Callable[[], T]) -> T:
        """Retry on SQLITE_BUSY beyond the busy timeout: never surface "database is locked"."""
        delay = 0.05
        for _ in range(50):
            try:
                return action()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 1.0)
        return action()

    def _write(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        def run() -> None:
            with self._lock:
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    for sql, params in statements:
                        self._conn.execute(sql, params)
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

        self._retry(run)

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        def run() -> list[Any]:
            with self._lock:
                return self._conn.execute(sql, params).fetchall()

        return self._retry(run)

    # ------------------------------------------------------------ sessions

    def create_session(self, session: Session) -> Session:
        return self.update_session(session)

    def update_session(self, session: Session) -> Session:
        session = session.model_copy(update={"time": session.time.model_copy(update={"updated": now_ms()})})
        self._write(
            [
                (
                    "INSERT INTO session(id, parent_id, notebook_path, time_created, time_updated,"
                    " data) VALUES (?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
                    " parent_id=excluded.parent_id, notebook_path=excluded.notebook_path,"
                    " time_updated=excluded.time_updated, data=excluded.data",
                    (
                        session.id,
                        session.parent_id,
                        session.notebook_path,
                        session.time.created,
                        session.time.updated,
                        session.model_dump_json(),
                    ),
                )
            ]
        )
        return session

    def get_session(self, session_id: str) -> Session:
        rows = self._query("SELECT data FROM session WHERE id=?", (session_id,))
        if not rows:
            known = [r[0] for r in self._query("SELECT id FROM session")]
            close = difflib.get_close_matches(session_id, known, n=3, cutoff=0.5)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise SessionNotFound(f"No session '{session_id}' in {self.path}.{hint}")
        return Session.model_validate_json(rows[0][0])

    def list_sessions(self, notebook_path: str | None = None) -> list[Session]:
        if notebook_path is None:
            rows = self._query("SELECT data FROM session ORDER BY time_updated DESC")
        else:
            rows = self._query(
                "SELECT data FROM session WHERE notebook_path=? ORDER BY time_updated DESC",
                (notebook_path,),
            )
        return [Session.model_validate_json(r[0]) for r in rows]

    def delete_session(self, session_id: str) -> None:
        with self._lock:
            for key in [k for k, p in self._pending.items() if p.session_id == session_id]:
                self._pending.pop(key)
        self._write([("DELETE FROM session WHERE id=?", (session_id,))])

    # ------------------------------------------------------------ messages

    def update_message(self, message: AnyMessage) -> AnyMessage:
        self._write(
            [
                (
                    "INSERT INTO message(id, session_id, time_created, time_updated, data)"
                    " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
                    " time_updated=excluded.time_updated, data=excluded.data",
                    (
                        message.id,
                        message.session_id,
                        message.time.created,
                        now_ms(),
                        message.model_dump_json(),
                    ),
                ),
                ("UPDATE session SET time_updated=? WHERE id=?", (now_ms(), message.session_id)),
            ]
        )
        return message

    def remove_message(self, session_id: str, message_id: str) -> None:
        with self._lock:
            for key in [k for k, p in self._pending.items() if p.message_id == message_id]:
                self._pending.pop(key)
        self._write([("DELETE FROM message WHERE id=? AND session_id=?", (message_id, session_id))])

    # ------------------------------------------------------------ parts

    def update_part(self, part: AnyPart, *, delta: str | None = None, final: bool = True) -> AnyPart:
        """Store a part; streaming (``final=False``) writes are coalesced per part."""
        with self._lock:
            if not final:
                last = self._last_write.get(part.id, 0.0)
                if time.monotonic() - last < COALESCE_S:
                    self._pending[part.id] = part
                    self._schedule()
                    return part
            self._pending.pop(part.id, None)
            self._write_parts([part])
            if final:
                self._last_write.pop(part.id, None)
        return part

    def _write_parts(self, parts: list[AnyPart]) -> None:
        stamp = now_ms()
        self._write(
            [
                (
                    "INSERT INTO part(id, message_id, session_id, time_created, time_updated, data)"
                    " VALUES (?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
                    " time_updated=excluded.time_updated, data=excluded.data",
                    (p.id, p.message_id, p.session_id, stamp, stamp, p.model_dump_json()),
                )
                for p in parts
            ]
        )
        self.writes += len(parts)
        now = time.monotonic()
        for p in parts:
            self._last_write[p.id] = now

    def _schedule(self) -> None:
        if self._timer is None:
            self._timer = threading.Timer(COALESCE_S, self._timer_flush)
            self._timer.daemon = True
            self._timer.start()

    def _timer_flush(self) -> None:
        with self._lock:
            self._timer = None
            self.flush()

    def flush(self) -> None:
        """Write every coalesced part now (end of step, abort, shutdown)."""
        with self._lock:
            pending = list(self._pending.values())
            self._pending.clear()
            if pending:
                self._write_parts(pending)

    def remove_part(self, part: AnyPart) -> None:
        with self._lock:
            self._pending.pop(part.id, None)
        self._write([("DELETE FROM part WHERE id=?", (part.id,))])

    def messages(self, session_id: str) -> list[MessageWithParts]:
        """The session's messages with their parts, oldest first, including unflushed parts."""
        self.flush()
        msgs = self._query("SELECT id, data FROM message WHERE session_id=? ORDER BY id", (session_id,))
        parts = self._query("SELECT message_id, data FROM part WHERE session_id=? ORDER BY id", (session_id,))
        by_message: dict[str, list[Any]] = {}
        for message_id, data in parts:
            by_message.setdefault(message_id, []).append(PartAdapter.validate_json(data))
        return [
            MessageWithParts(info=MessageAdapter.validate_json(data), parts=by_message.get(mid, []))
            for mid, data in msgs
        ]

    def mark_compacted(self, part_ids: Iterable[str], at_ms: int) -> int:
        """Set ``time.compacted`` on completed tool parts (prune); returns how many changed."""
        self.flush()
        changed: list[AnyPart] = []
        for pid in part_ids:
            rows = self._query("SELECT data FROM part WHERE id=?", (pid,))
            if not rows:
                continue
            part = PartAdapter.validate_json(rows[0][0])
            if isinstance(part, ToolPart) and isinstance(part.state, ToolStateCompleted):
                time_ = part.state.time.model_copy(update={"compacted": at_ms})
                state = part.state.model_copy(update={"time": time_})
                changed.append(part.model_copy(update={"state": state}))
        if changed:
            self._write_parts(changed)
        return len(changed)

    def close(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self.flush()
            self._conn.close()
