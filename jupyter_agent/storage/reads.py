"""The session store's reads: whole sessions, id ranges, and the lookups a reopen needs.

Validating rows into pydantic models is what reading costs, so each reader asks for no
more than it needs: a cell its own run, a reopen the window after the last compaction
(``agent/window.py``) and what a dead process left open, found through indexes.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from jupyter_agent.core.messages import (
    AnyPart,
    CompactionPart,
    MessageAdapter,
    MessageWithParts,
    PartAdapter,
    ToolPart,
)
from jupyter_agent.storage import migrations
from jupyter_agent.storage.coalesce import Coalescer
from jupyter_agent.storage.database import Database

_NO_END = "\U0010ffff"
"""Sorts after every id: the open end of an id range."""


class StoreReads:
    """Mixed into ``SqliteStore``, which owns the database, the coalescer and ``flush``."""

    _db: Database
    _coalescer: Coalescer
    rows_read: int

    def flush(self) -> None:
        """Write coalesced parts (``SqliteStore.flush``)."""
        raise NotImplementedError

    def messages(
        self, session_id: str, since: str = "", *, until: str | None = None, parts: bool = True
    ) -> list[MessageWithParts]:
        """The session's messages with their parts, ordered by id, unflushed parts included.

        ``since``/``until``: only messages with ``since`` ≤ id < ``until`` (a cell's own run,
        the window after a compaction, an older page); ``parts=False``: the messages alone
        (gauges and costs). Validating rows is what reopening costs, so readers that need
        less ask for less.
        """
        end = until if until is not None else _NO_END

        def work(conn: sqlite3.Connection) -> tuple[list[Any], list[Any], list[AnyPart]]:
            msgs = conn.execute(
                "SELECT id, data FROM message WHERE session_id=? AND id>=? AND id<? ORDER BY id",
                (session_id, since, end),
            ).fetchall()
            rows = []
            if parts and msgs:
                first, last = msgs[0][0], msgs[-1][0]
                # a range (a window, a run) by message id: its parts without touching the
                # others; a whole session by its own index (other sessions' parts may interleave)
                index = "part_message" if since or until is not None else "part_session"
                rows = conn.execute(
                    f"SELECT message_id, id, data FROM part INDEXED BY {index} WHERE session_id=?"
                    " AND message_id>=? AND message_id<=? ORDER BY id",
                    (session_id, first, last),
                ).fetchall()
            # Under the db lock, so no timer write lands between the rows and this copy.
            pending = self._coalescer.pending(session_id) if parts else []
            return msgs, rows, [p for p in pending if since <= p.message_id < end]

        msgs, rows, pending = self._db.read(work)
        by_message: dict[str, dict[str, AnyPart]] = {}
        for message_id, part_id, data in rows:
            by_message.setdefault(message_id, {})[part_id] = PartAdapter.validate_json(data)
        for part in pending:  # newer than the row, or not written yet
            by_message.setdefault(part.message_id, {})[part.id] = part
        result = []
        for message_id, data in msgs:
            found = by_message.get(message_id, {})
            ordered = [found[k] for k in sorted(found)] if pending else list(found.values())
            result.append(MessageWithParts(info=MessageAdapter.validate_json(data), parts=ordered))
        self.rows_read += len(msgs) + len(rows)
        return result

    def compactions(self, session_id: str, until: str | None = None) -> list[CompactionPart]:
        """The session's compaction parts (of messages before ``until``), newest first.

        Found through an index on the part's type: reopening never reads every part. No
        flush first: compaction parts are written whole, never coalesced.
        """
        end = until if until is not None else _NO_END
        rows = self._db.read(
            lambda c: c.execute(
                "SELECT data FROM part INDEXED BY part_type WHERE session_id=? AND"
                f" {migrations.PART_TYPE}='compaction' AND message_id<?"
                " ORDER BY message_id DESC, id DESC",
                (session_id, end),
            ).fetchall()
        )
        found = [PartAdapter.validate_json(r[0]) for r in rows]
        self.rows_read += len(rows)
        return [p for p in found if isinstance(p, CompactionPart)]

    def message_before(self, session_id: str, before: str | None, count: int = 1) -> str | None:
        """The id of the ``count``-th message before ``before`` (``None``: counting from the
        newest message itself); None when fewer exist."""
        bound = "" if before is None else " AND id<?"
        row = self._db.read(
            lambda c: c.execute(
                f"SELECT id FROM message WHERE session_id=?{bound} ORDER BY id DESC LIMIT 1 OFFSET ?",
                (session_id, *([] if before is None else [before]), count - 1),
            ).fetchone()
        )
        return row[0] if row else None

    def last_message(self, session_id: str) -> MessageWithParts | None:
        """The newest message with its parts, read through the index (None: no messages)."""
        last = self.message_before(session_id, None)
        return self.messages(session_id, last)[-1] if last else None

    def unfinished(self, session_id: str) -> list[MessageWithParts]:
        """What a dead process may have left open: unfinished assistant messages (no finish,
        no completion time), and messages with pending or running tool parts (only those).

        Recovery reads this on the first claim of a session, through indexes: a long
        session is not read whole.
        """
        self.flush()

        def work(conn: sqlite3.Connection) -> tuple[list[Any], list[Any]]:
            parts = conn.execute(
                "SELECT message_id, data FROM part INDEXED BY part_status WHERE session_id=?"
                f" AND {migrations.PART_STATUS} IN ('pending', 'running') ORDER BY id",
                (session_id,),
            ).fetchall()
            owners = json.dumps(sorted({r[0] for r in parts}))
            msgs = conn.execute(
                "SELECT id, data FROM message INDEXED BY message_open WHERE session_id=?1"
                f" AND {migrations.OPEN_ANSWER}"
                " UNION SELECT id, data FROM message WHERE session_id=?1 AND id IN"
                " (SELECT value FROM json_each(?2)) ORDER BY id",
                (session_id, owners),
            ).fetchall()
            return msgs, parts

        msgs, parts = self._db.read(work)
        by_message: dict[str, list[AnyPart]] = {}
        for message_id, data in parts:
            part = PartAdapter.validate_json(data)
            if isinstance(part, ToolPart) and part.state.status in ("pending", "running"):
                by_message.setdefault(message_id, []).append(part)
        self.rows_read += len(msgs) + len(parts)
        return [
            MessageWithParts(info=MessageAdapter.validate_json(data), parts=by_message.get(mid, []))
            for mid, data in msgs
        ]
