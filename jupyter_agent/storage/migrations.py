"""Numbered schema migrations; the ``schema_version`` table says which have run.

Add a change as ``m002_…`` appended to ``MIGRATIONS``; never edit a shipped one, because
databases in the wild already ran it. Migrations must not commit (no ``executescript``):
:func:`migrate` runs all pending ones in a single transaction, all or nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _run(conn: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one: ``executescript`` would commit mid-migration."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_initial(conn: sqlite3.Connection) -> None:
    """Sessions, messages and parts; each row keeps the pydantic dump in ``data``.

    The id and owner columns exist for ordering, filtering and cascades; ``data`` is the
    source of truth, so new model fields need no migration.
    """
    _run(
        conn,
        """
        CREATE TABLE session (
            id TEXT PRIMARY KEY,
            parent_id TEXT REFERENCES session(id) ON DELETE CASCADE,
            notebook_path TEXT,
            time_created INTEGER NOT NULL,
            time_updated INTEGER NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX session_notebook ON session(notebook_path, time_updated);
        CREATE INDEX session_parent ON session(parent_id);
        CREATE TABLE message (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            time_created INTEGER NOT NULL,
            time_updated INTEGER NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX message_session ON message(session_id, id);
        CREATE TABLE part (
            id TEXT PRIMARY KEY,
            message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
            session_id TEXT NOT NULL,
            time_created INTEGER NOT NULL,
            time_updated INTEGER NOT NULL,
            data TEXT NOT NULL
        );
        CREATE INDEX part_message ON part(message_id, id);
        CREATE INDEX part_session ON part(session_id, id);
        """,
    )


def m002_session_lease(conn: sqlite3.Connection) -> None:
    """One writer per session: who runs it (pid, host) and until when (``storage/lease.py``)."""
    _run(
        conn,
        """
        CREATE TABLE session_lease (
            session_id TEXT PRIMARY KEY,
            pid INTEGER NOT NULL,
            host TEXT NOT NULL,
            expires INTEGER NOT NULL
        );
        """,
    )


PART_TYPE = "json_extract(data, '$.type')"
PART_STATUS = "json_extract(data, '$.state.status')"
OPEN_ANSWER = (
    "json_extract(data, '$.role') = 'assistant' AND json_extract(data, '$.finish') IS NULL"
    " AND json_extract(data, '$.time.completed') IS NULL"
)
"""Queries must spell these exactly as here for SQLite to use the indexes below."""


def m003_reopen_lookups(conn: sqlite3.Connection) -> None:
    """Reopening a long session finds its last compaction and what a dead process left open
    through these indexes, instead of reading every row (``agent/window.py``, recovery)."""
    _run(
        conn,
        f"""
        CREATE INDEX part_type ON part(session_id, {PART_TYPE});
        CREATE INDEX part_status ON part(session_id, {PART_STATUS});
        CREATE INDEX message_open ON message(session_id) WHERE {OPEN_ANSWER};
        """,
    )


def m004_call_costs(conn: sqlite3.Connection) -> None:
    """Model calls made for a session outside its messages (its title): what they cost counts
    in the session's totals and budget. Rows, not a session field: a session record written
    from a stale copy must not lose what was spent."""
    _run(
        conn,
        """
        CREATE TABLE call_cost (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            model TEXT NOT NULL,
            usd REAL,
            time INTEGER NOT NULL
        );
        CREATE INDEX call_cost_session ON call_cost(session_id);
        """,
    )


Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = [m001_initial, m002_session_lease, m003_reopen_lookups, m004_call_costs]
SCHEMA_VERSION = len(MIGRATIONS)


def current_version(conn: sqlite3.Connection) -> int:
    """The schema version of the open database; 0 for a new (empty) file.

    Reading ``sqlite_master`` is also what fails first on a file that is not a database.
    """
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_version'"
    ).fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(conn: sqlite3.Connection) -> int:
    """Run the pending migrations in one transaction; returns the version afterwards.

    The version is read again under the write lock: two kernels opening a new file at the
    same moment must not both run ``m001`` (the second would fail on existing tables).
    A database newer than this code is left untouched and its version returned.
    """
    steps = MIGRATIONS
    if current_version(conn) >= len(steps):
        return current_version(conn)
    conn.execute("BEGIN IMMEDIATE")
    try:
        start = current_version(conn)
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        for number, step in enumerate(steps[start:], start=start + 1):
            step(conn)
            conn.execute("INSERT INTO schema_version(version) VALUES (?)", (number,))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return max(start, len(steps))
