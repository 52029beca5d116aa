"""Numbered schema migrations; the ``schema_version`` table says which have run."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _run(conn: sqlite3.Connection, script: str) -> None:
    """Execute statements one by one: ``executescript`` would commit mid-migration."""
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def m001_initial(conn: sqlite3.Connection) -> None:
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


MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [m001_initial]
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, start: int) -> None:
    """Run migrations after ``start`` in one transaction (all or nothing)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        for number, step in enumerate(MIGRATIONS[start:], start=start + 1):
            step(conn)
            conn.execute("INSERT INTO schema_version(version) VALUES (?)", (number,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
