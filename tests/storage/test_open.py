"""Opening databases: older schemas migrated, racing openers, locks.

Damaged and newer-schema files are in the fault suite, tests/faults/test_storage_faults.py.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage import database, migrations
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore


def _filled_db(folder: Path) -> Path:
    with SqliteStore.for_directory(folder) as store:
        store.create_session(Session(id="ses_1", title="keep me"))
    return db_path(folder)


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return migrations.current_version(conn)
    finally:
        conn.close()


def _m002_labels(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE label (session_id TEXT REFERENCES session(id), name TEXT)")
    conn.execute("INSERT INTO label SELECT id, 'old' FROM session")


def _m002_broken(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE label (name TEXT)")
    raise RuntimeError("migration bug")


def test_older_schema_is_migrated_keeping_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _filled_db(tmp_path)
    shipped = migrations.SCHEMA_VERSION
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, _m002_labels])
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", shipped + 1)
    with SqliteStore(db) as store:
        assert store.get_session("ses_1").title == "keep me"
    assert _version(db) == shipped + 1
    assert sqlite3.connect(db).execute("SELECT * FROM label").fetchall() == [("ses_1", "old")]


def test_failed_migration_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _filled_db(tmp_path)
    shipped = migrations.SCHEMA_VERSION
    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, _m002_broken])
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", shipped + 1)
    with pytest.raises(RuntimeError, match="migration bug"):
        SqliteStore(db)
    assert _version(db) == shipped
    tables = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master")}
    assert "label" not in tables and "session" in tables


def test_racing_openers_of_a_new_file(tmp_path: Path) -> None:
    db = db_path(tmp_path)
    barrier = threading.Barrier(8)
    stores: list[SqliteStore] = []
    errors: list[BaseException] = []

    def open_store() -> None:
        barrier.wait()
        try:
            stores.append(SqliteStore(db))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert _version(db) == migrations.SCHEMA_VERSION
    rows = sqlite3.connect(db).execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    assert [r[0] for r in rows] == list(range(1, migrations.SCHEMA_VERSION + 1))  # each ran once
    for store in stores:
        store.close()


def test_lock_held_past_busy_timeout_is_waited_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(database, "BUSY_TIMEOUT_MS", 20)  # force our own retry loop
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="s"))
    store.update_message(UserMessage(id="m", session_id="s"))
    other = sqlite3.connect(store.path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.6, lambda: other.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    store.update_part(TextPart(id="p", session_id="s", message_id="m", text="after the lock"))
    assert time.monotonic() - started >= 0.4  # it really waited for the other writer
    release.join()
    other.close()
    assert store.messages("s")[0].parts[0].text == "after the lock"  # type: ignore[union-attr]
    store.close()


def test_an_older_store_gets_the_reopen_indexes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A schema-2 file full of sessions: opening adds the indexes a reopen looks things up by,
    and what it finds through them is what was stored."""
    from jupyter_agent.core.messages import CompactionPart

    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:2])
        m.setattr(migrations, "SCHEMA_VERSION", 2)
        with SqliteStore.for_directory(tmp_path) as store:
            store.create_session(Session(id="ses_1"))
            store.update_message(UserMessage(id="msg_1", session_id="ses_1"))
            store.update_part(CompactionPart(id="prt_1", session_id="ses_1", message_id="msg_1", auto=True))
            store.update_part(TextPart(id="prt_2", session_id="ses_1", message_id="msg_1", text="x"))
    db = db_path(tmp_path)
    assert _version(db) == 2
    with SqliteStore(db) as store:
        assert [p.id for p in store.compactions("ses_1")] == ["prt_1"]
        assert store.unfinished("ses_1") == []
    assert _version(db) == migrations.SCHEMA_VERSION
    names = {r[0] for r in sqlite3.connect(db).execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert {"part_type", "part_status", "message_open"} <= names
