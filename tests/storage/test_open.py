"""Opening databases: damaged files, newer and older schemas, racing openers, locks."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage import database, migrations
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore, StoreVersionError


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


def test_garbage_file_is_moved_aside_with_its_sidecars(tmp_path: Path) -> None:
    db = db_path(tmp_path)
    db.write_bytes(b"this is not a database" * 100)
    (db.parent / "sessions.db-wal").write_bytes(b"wal bytes")
    (db.parent / "sessions.db-shm").write_bytes(b"shm bytes")
    store = SqliteStore(db)
    [moved] = list(db.parent.glob("sessions.db.corrupt-*[0-9]"))
    assert moved.read_bytes() == b"this is not a database" * 100
    assert Path(f"{moved}-wal").read_bytes() == b"wal bytes"
    assert Path(f"{moved}-shm").read_bytes() == b"shm bytes"
    assert store.notice is not None
    assert str(db) in store.notice and str(moved) in store.notice
    assert "Nothing was deleted" in store.notice
    store.create_session(Session(id="ses_1"))
    assert store.get_session("ses_1").id == "ses_1"
    store.close()
    with SqliteStore(db) as again:  # the fresh store opens cleanly: no second notice
        assert again.notice is None


def test_malformed_database_is_moved_aside(tmp_path: Path) -> None:
    db = _filled_db(tmp_path)
    data = bytearray(db.read_bytes())
    data[100:2000] = b"\xff" * 1900  # keep the header, wreck the schema page
    db.write_bytes(bytes(data))
    with SqliteStore(db) as store:
        assert store.notice is not None and "malformed" in store.notice
        assert store.list_sessions() == []
    [moved] = list(db.parent.glob("sessions.db.corrupt-*"))
    assert moved.read_bytes() == bytes(data)


def test_two_corruptions_in_one_second_keep_both_files(tmp_path: Path) -> None:
    db = db_path(tmp_path)
    for n in range(2):
        db.write_bytes(b"garbage %d" % n * 50)
        SqliteStore(db).close()
    kept = sorted(p.read_bytes()[:9] for p in db.parent.glob("sessions.db.corrupt-*"))
    assert kept == [b"garbage 0", b"garbage 1"]


def test_unopenable_path_is_an_error_not_a_corruption(tmp_path: Path) -> None:
    db = db_path(tmp_path)
    db.mkdir()  # a folder where the file should be
    with pytest.raises(sqlite3.OperationalError):
        SqliteStore(db)
    assert db.is_dir() and not list(db.parent.glob("*.corrupt-*"))


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    db = _filled_db(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 5,))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(StoreVersionError) as info:
        SqliteStore(db)
    message = str(info.value)
    assert str(db) in message and "pip install -U jupyter-agent" in message
    assert f"schema version {migrations.SCHEMA_VERSION + 5}" in message
    assert f"supports schema version {migrations.SCHEMA_VERSION}" in message
    assert db.read_bytes() == before


def test_newer_schema_with_a_leftover_wal_is_not_checkpointed(tmp_path: Path) -> None:
    db = _filled_db(tmp_path)
    live = sqlite3.connect(db, isolation_level=None)
    live.execute("PRAGMA wal_autocheckpoint=0")
    live.execute("INSERT INTO schema_version(version) VALUES (99)")
    crashed = tmp_path / "crashed"  # the files as a killed newer kernel leaves them
    crashed.mkdir()
    for name in ("sessions.db", "sessions.db-wal"):
        (crashed / name).write_bytes((db.parent / name).read_bytes())
    live.close()
    before = {p.name: p.read_bytes() for p in crashed.iterdir()}
    assert before["sessions.db-wal"]  # the newer version lives only in the WAL
    with pytest.raises(StoreVersionError, match="schema version 99"):
        SqliteStore(crashed / "sessions.db")
    after = {p.name: p.read_bytes() for p in crashed.iterdir() if p.name in before}
    assert after == before


def _m002_labels(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE label (session_id TEXT REFERENCES session(id), name TEXT)")
    conn.execute("INSERT INTO label SELECT id, 'old' FROM session")


def _m002_broken(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE label (name TEXT)")
    raise RuntimeError("migration bug")


def test_older_schema_is_migrated_keeping_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _filled_db(tmp_path)
    monkeypatch.setattr(migrations, "MIGRATIONS", [migrations.m001_initial, _m002_labels])
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", 2)
    with SqliteStore(db) as store:
        assert store.get_session("ses_1").title == "keep me"
    assert _version(db) == 2
    assert sqlite3.connect(db).execute("SELECT * FROM label").fetchall() == [("ses_1", "old")]


def test_failed_migration_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = _filled_db(tmp_path)
    monkeypatch.setattr(migrations, "MIGRATIONS", [migrations.m001_initial, _m002_broken])
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", 2)
    with pytest.raises(RuntimeError, match="migration bug"):
        SqliteStore(db)
    assert _version(db) == 1
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
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
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
