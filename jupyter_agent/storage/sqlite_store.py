"""The session store: SQLite next to the notebook, safe for two kernels and a SIGKILL.

Every write is one ``BEGIN IMMEDIATE`` transaction in WAL mode, so a killed kernel loses
at most the unflushed tail of one streaming part, never a completed one. Streaming parts
are coalesced (≤ 1 write per ``COALESCE_S`` per part, plus the final write) because a
write per token would cost more than the model call, and written by the coalescer's
thread (``coalesce.py``), so the kernel's event loop never waits for the disk on them.

The database lock is held for a whole transaction (kernel loop and writer thread share
one connection); the coalescer's lock is never held during I/O, so a streaming update
never waits for the disk. Lock order: database, then coalescer.
"""

from __future__ import annotations

import atexit
import contextlib
import difflib
import sqlite3
import weakref
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.cost import COMPLETIONS, CostTotal
from jupyter_agent.core.errors import NameNotFound
from jupyter_agent.core.messages import (
    AnyMessage,
    AnyPart,
    PartAdapter,
    Session,
    ToolPart,
    ToolStateCompleted,
)
from jupyter_agent.storage import location
from jupyter_agent.storage.coalesce import Coalescer
from jupyter_agent.storage.database import (
    Database,
    StoreBusyError,
    StoreError,
    StoreVersionError,
    StoreWaitStopped,
)
from jupyter_agent.storage.filesystem import network_fs
from jupyter_agent.storage.lease import Leases, SessionBusyError
from jupyter_agent.storage.reads import StoreReads

__all__ = [
    "SessionBusyError",
    "SessionNotFound",
    "SqliteStore",
    "StoreBusyError",
    "StoreError",
    "StoreVersionError",
    "StoreWaitStopped",
]

_UPSERT_PART = (
    "INSERT INTO part(id, message_id, session_id, time_created, time_updated, data)"
    " VALUES (?,?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
    " time_updated=excluded.time_updated, data=excluded.data"
)
# Background writes skip parts whose message was deleted meanwhile (maybe by another
# process): a late timer must not turn a delete into a foreign-key error.
_UPSERT_OWNED_PART = (
    "INSERT INTO part(id, message_id, session_id, time_created, time_updated, data)"
    " SELECT ?,?,?,?,?,? WHERE EXISTS (SELECT 1 FROM message WHERE id=?)"
    " ON CONFLICT(id) DO UPDATE SET time_updated=excluded.time_updated, data=excluded.data"
)
_UNPRICED = (
    "(json_extract(data, '$.cost_unknown') OR (json_extract(data, '$.error') IS NOT NULL"
    " AND json_extract(data, '$.finish') IS NULL))"
)
"""A step without a price, or a call that failed before its usage was known (``cost.unpriced``)."""
_open_stores: weakref.WeakSet[SqliteStore] = weakref.WeakSet()


@atexit.register
def _close_open_stores() -> None:
    """Daemon timers die with the interpreter: write whatever they still hold."""
    for store in list(_open_stores):
        with contextlib.suppress(Exception):
            store.close()


class SessionNotFound(NameNotFound):
    """An unknown session id; the message lists close matches."""

    missing = "session not found"


def _row(part: AnyPart, stamp: int) -> tuple[Any, ...]:
    return (part.id, part.message_id, part.session_id, stamp, stamp, part.model_dump_json())


class SqliteStore(StoreReads):
    """Implements ``agent.ports.SessionStore`` on one SQLite file."""

    def __init__(self, path: Path, network: str | Callable[[Path], str | None] | None = network_fs) -> None:
        """``network``: the network file system ``path`` is on, or how to tell (``filesystem.py``)."""
        self.path = Path(path)
        self.writes = 0
        """Part rows written by ``update_part``/``flush``: lets tests see coalescing work."""
        self.rows_read = 0
        """Message and part rows read for validation: lets tests see a reopen read only its window."""
        self._coalescer = Coalescer(lambda: self._write_pending(only_due=True))
        self._db = Database(self.path, network(self.path) if callable(network) else network)
        self.notice: str | None = self._db.notice
        """Something the user must be told once (e.g. a damaged file was moved aside)."""
        self.leases = Leases(self._db)
        """One writer per session across processes (``lease.py``)."""
        self.location = location.StoreLocation(self.path.parent)
        """Where the store is and why (``location.py``): the sandbox protects it there."""
        _open_stores.add(self)

    @classmethod
    def for_directory(
        cls, folder: Path, store: str | None = None, env: Mapping[str, str] | None = None
    ) -> SqliteStore:
        """The store of the notebook folder ``folder``: ``<folder>/.jupyter-agent/sessions.db``,
        or where ``store`` (the setting) or a read-only folder puts it (``location.py``)."""
        return cls.at(location.locate(Path(folder), store, env), Path(folder))

    @classmethod
    def at(cls, where: location.StoreLocation, folder: Path) -> SqliteStore:
        """The store in ``where`` (for the notebook folder ``folder``), its folder created."""
        try:
            location.create(where, folder)
        except OSError as exc:  # a read-only or full file system, a file in the way
            fix = "set `store` to a folder you can write to" if where.base else f"make {folder} writable"
            raise StoreError(
                f"Cannot create the session folder {where.folder} ({exc.strerror or exc}). "
                f"{fix[0].upper()}{fix[1:]}, or run from a folder you can write to."
            ) from exc
        opened = cls(where.db)
        opened.location = where
        opened.notice = " ".join(n for n in (where.notice, opened.notice) if n) or None
        return opened

    @classmethod
    def for_notebook(cls, notebook: Path) -> SqliteStore:
        """The store next to ``notebook``: sessions travel with the notebook's folder."""
        return cls.for_directory(Path(notebook).resolve().parent)

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ sessions

    def create_session(self, session: Session) -> Session:
        return self.update_session(session)

    def update_session(self, session: Session) -> Session:
        """Insert or replace ``session``; returns it with ``time.updated`` set to now."""
        session = session.model_copy(update={"time": session.time.model_copy(update={"updated": now_ms()})})
        self._db.transaction(
            lambda conn: conn.execute(
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
        )
        return session

    def get_session(self, session_id: str) -> Session:
        """The session, or :class:`SessionNotFound` naming the closest known ids."""
        row = self._db.read(
            lambda c: c.execute("SELECT data FROM session WHERE id=?", (session_id,)).fetchone()
        )
        if row is None:
            rows = self._db.read(lambda c: c.execute("SELECT id FROM session").fetchall())
            known = [r[0] for r in rows]
            close = difflib.get_close_matches(session_id, known, n=3, cutoff=0.5)
            hint = f" Did you mean: {', '.join(close)}?" if close else ""
            raise SessionNotFound(f"No session '{session_id}' in {self.path}.{hint}")
        return Session.model_validate_json(row[0])

    def list_sessions(self, notebook_path: str | None = None) -> list[Session]:
        """Sessions (of one notebook, or all), most recently active first."""
        sql = "SELECT data FROM session WHERE ?1 IS NULL OR notebook_path=?1"
        sql += " ORDER BY time_updated DESC, id DESC"
        rows = self._db.read(lambda c: c.execute(sql, (notebook_path,)).fetchall())
        return [Session.model_validate_json(r[0]) for r in rows]

    def session_costs(self) -> dict[str, CostTotal]:
        """What each session cost (its own steps, summaries included, and the calls made for
        it such as its title), read in two queries."""
        sql = (
            f"SELECT session_id, SUM(json_extract(data, '$.cost')), MAX({_UNPRICED}),"
            " COUNT(*) FROM message WHERE json_extract(data, '$.role') = 'assistant' AND ("
            "json_extract(data, '$.finish') IS NOT NULL OR json_extract(data, '$.cost') > 0"
            " OR json_extract(data, '$.cost_unknown') OR json_extract(data, '$.error') IS NOT NULL)"
            " GROUP BY session_id"
        )
        rows = self._db.read(lambda c: c.execute(sql).fetchall())
        costs = {r[0]: CostTotal(usd=r[1] or 0.0, unknown=bool(r[2]), steps=r[3]) for r in rows}
        for session_id, calls in self.call_costs().items():
            costs.setdefault(session_id, CostTotal()).merge(calls)
        return costs

    def subtask_costs(self, session_id: str) -> CostTotal:
        """What the sub-agent sessions under ``session_id`` (children, theirs, …) cost: their
        steps and the calls made for them. Indexed lookups; nothing when there are none."""
        tree = (
            "WITH RECURSIVE tree(id) AS (SELECT id FROM session WHERE parent_id=?1"
            " UNION SELECT s.id FROM session s JOIN tree ON s.parent_id = tree.id) "
        )
        steps = (
            tree + f"SELECT SUM(json_extract(data, '$.cost')), MAX({_UNPRICED}),"
            " COUNT(*) FROM message WHERE session_id IN tree AND json_extract(data, '$.role') = 'assistant'"
            " AND (json_extract(data, '$.finish') IS NOT NULL OR json_extract(data, '$.cost') > 0"
            " OR json_extract(data, '$.cost_unknown') OR json_extract(data, '$.error') IS NOT NULL)"
        )
        calls = tree + (
            "SELECT SUM(usd), MAX(usd IS NULL), COUNT(*) FROM call_cost WHERE session_id IN tree"
            f" AND kind != '{COMPLETIONS}'"
        )

        def read(conn: sqlite3.Connection) -> CostTotal:
            out = CostTotal()
            for sql in (steps, calls):
                usd, unknown, count = conn.execute(sql, (session_id,)).fetchone()
                out.merge(CostTotal(usd=usd or 0.0, unknown=bool(unknown), steps=count or 0))
            return out

        return self._db.read(read)

    def add_call_cost(self, session_id: str, kind: str, model: str, usd: float | None) -> None:
        """A model call made for the session outside its messages (``kind``: "title");
        ``usd`` None: litellm has no price for ``model`` (shown as unknown, never $0)."""
        self._db.transaction(
            lambda conn: conn.execute(
                "INSERT INTO call_cost(session_id, kind, model, usd, time) VALUES (?,?,?,?,?)",
                (session_id, kind, model, usd, now_ms()),
            )
        )

    def call_costs(self, session_id: str | None = None, *, kind: str | None = None) -> dict[str, CostTotal]:
        """What the calls made outside messages cost, per session (of one, or all): those the
        session's totals and budgets count (its title), or only those of ``kind``. Inline
        completions ("completion") are a line of their own, never in those totals."""
        sql = (
            "SELECT session_id, SUM(usd), MAX(usd IS NULL), COUNT(*) FROM call_cost"
            " WHERE (?1 IS NULL OR session_id=?1) AND (kind=?2 OR (?2 IS NULL AND kind != ?3))"
            " GROUP BY session_id"
        )
        args = (session_id, kind, COMPLETIONS)
        rows = self._db.read(lambda c: c.execute(sql, args).fetchall())
        return {r[0]: CostTotal(usd=r[1] or 0.0, unknown=bool(r[2]), steps=r[3]) for r in rows}

    def delete_session(self, session_id: str) -> None:
        """Delete a session; its messages, parts and child sessions go by cascade."""

        def work(conn: sqlite3.Connection) -> set[str]:
            tree = conn.execute(
                "WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT s.id FROM session s"
                " JOIN tree ON s.parent_id = tree.id) SELECT id FROM tree",
                (session_id,),
            ).fetchall()
            conn.execute("DELETE FROM session WHERE id=?", (session_id,))
            return {r[0] for r in tree}

        gone = self._db.transaction(work)
        self._coalescer.forget(lambda p: p.session_id not in gone)

    # ------------------------------------------------------------ messages

    def update_message(self, message: AnyMessage) -> AnyMessage:
        """Insert or replace a message; also marks its session as recently active."""
        stamp = now_ms()

        def work(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO message(id, session_id, time_created, time_updated, data)"
                " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET"
                " time_updated=excluded.time_updated, data=excluded.data",
                (message.id, message.session_id, message.time.created, stamp, message.model_dump_json()),
            )
            conn.execute(
                "UPDATE session SET time_updated=?1, data=json_set(data, '$.time.updated', ?1) WHERE id=?2",
                (stamp, message.session_id),
            )

        self._db.transaction(work)
        return message

    def remove_message(self, session_id: str, message_id: str) -> None:
        self._db.transaction(
            lambda c: c.execute("DELETE FROM message WHERE id=? AND session_id=?", (message_id, session_id)),
            on_commit=lambda: self._coalescer.forget(lambda p: p.message_id != message_id),
        )

    # ------------------------------------------------------------ parts

    def update_part(self, part: AnyPart, *, delta: str | None = None, final: bool = True) -> AnyPart:
        """Store a part; streaming (``final=False``) writes are coalesced per part.

        ``delta`` is not stored: the part already holds the whole text.
        """
        if self._db.closed:
            raise sqlite3.ProgrammingError(f"the session store {self.path} is closed")
        if not final:  # the coalescer's thread writes it: a stream never waits for the disk
            self._coalescer.offer(part)
            return part

        def written() -> None:
            self._coalescer.written(part, final=final)
            self.writes += 1

        self._db.transaction(lambda c: c.execute(_UPSERT_PART, _row(part, now_ms())), written)
        return part

    def remove_part(self, part: AnyPart) -> None:
        self._db.transaction(
            lambda c: c.execute("DELETE FROM part WHERE id=?", (part.id,)),
            on_commit=lambda: self._coalescer.forget(lambda p: p.id != part.id),
        )

    async def wait_writable(self) -> None:
        """Until no other process holds the store's write lock (``Database.wait_writable``)."""
        await self._db.wait_writable()

    def flush(self) -> None:
        """Write every coalesced part now (end of step, abort, shutdown)."""
        self._write_pending(only_due=False)

    def _write_pending(self, *, only_due: bool) -> None:
        """Write pending parts in one transaction (the timer's and ``flush``'s path)."""
        with self._db.lock:
            if self._db.closed or not self._coalescer.has_pending():
                return
            taken: dict[str, AnyPart] = {}

            def work(conn: sqlite3.Connection) -> None:
                taken.clear()  # taken afresh on each attempt: a final write may have won
                taken.update(self._coalescer.take(only_due=only_due))
                stamp = now_ms()
                for part in taken.values():
                    conn.execute(_UPSERT_OWNED_PART, (*_row(part, stamp), part.message_id))

            def written() -> None:
                self._coalescer.settle(taken)
                self.writes += len(taken)

            self._db.transaction(work, written)

    def mark_compacted(self, part_ids: Iterable[str], at_ms: int) -> int:
        """Set ``time.compacted`` on completed tool parts (prune); returns how many changed.

        Other parts are left alone: only a finished output may be replaced by the
        placeholder. An already compacted part gets ``at_ms`` too, as the loop's
        in-memory copy does, and counts only if its time actually changed.
        """
        wanted = list(dict.fromkeys(part_ids))
        if not wanted:
            return 0
        self.flush()

        def work(conn: sqlite3.Connection) -> int:
            changed = 0
            for pid in wanted:
                row = conn.execute("SELECT data FROM part WHERE id=?", (pid,)).fetchone()
                part = PartAdapter.validate_json(row[0]) if row else None
                if (
                    not isinstance(part, ToolPart)
                    or not isinstance(part.state, ToolStateCompleted)
                    or part.state.time.compacted == at_ms
                ):
                    continue
                state = part.state.model_copy(
                    update={"time": part.state.time.model_copy(update={"compacted": at_ms})}
                )
                data = part.model_copy(update={"state": state}).model_dump_json()
                conn.execute("UPDATE part SET data=?, time_updated=? WHERE id=?", (data, now_ms(), pid))
                changed += 1
            return changed

        return self._db.transaction(work)

    def close(self) -> None:
        """Write pending parts and close; safe to call twice."""
        with self._db.lock:
            if self._db.closed:
                return
            try:
                self.leases.release_all()
                self._write_pending(only_due=False)
            finally:
                self._coalescer.stop()
                self._db.close()
                _open_stores.discard(self)
