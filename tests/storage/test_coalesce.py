"""Streaming writes are coalesced, yet the newest text is never lost or hidden."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage.coalesce import COALESCE_S
from jupyter_agent.storage.sqlite_store import SqliteStore


def _store(tmp_path: Path, sid: str = "s") -> SqliteStore:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id=sid))
    store.update_message(UserMessage(id="m", session_id=sid))
    return store


def _stored_text(path: Path, part_id: str) -> str | None:
    """What another process would read right now (a separate connection)."""
    conn = sqlite3.connect(path)
    try:
        row = conn.execute("SELECT data FROM part WHERE id=?", (part_id,)).fetchone()
    finally:
        conn.close()
    return None if row is None else TextPart.model_validate_json(row[0]).text


def _eventually(check: Callable[[], bool], timeout: float = 30) -> bool:
    """Polls ``check`` (the writer thread runs in the background); no timing is asserted."""
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return check()


def test_rapid_updates_are_written_rarely_and_finally_in_full(tmp_path: Path) -> None:
    store = _store(tmp_path)
    part = TextPart(id="p", session_id="s", message_id="m")
    started, before = time.monotonic(), store.writes
    for _ in range(1000):
        part = part.model_copy(update={"text": part.text + "x"})
        store.update_part(part, delta="x", final=False)
    store.update_part(part, final=True)
    elapsed = time.monotonic() - started
    assert 1 <= store.writes - before <= 3 + elapsed / COALESCE_S, (store.writes - before, elapsed)
    assert _stored_text(store.path, "p") == "x" * 1000
    store.close()


def test_a_streaming_write_never_waits_for_the_database(tmp_path: Path) -> None:
    """The kernel's event loop hands streaming versions over: while another writer holds the
    database (a slow disk, a long transaction), the update returns and the writer thread
    writes the part once the database is free."""
    store = _store(tmp_path)
    part = TextPart(id="p", session_id="s", message_id="m", text="a")
    held, release = threading.Event(), threading.Event()

    def hold() -> None:
        with store._db.lock:
            held.set()
            release.wait(60)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)
    streamer = threading.Thread(target=lambda: store.update_part(part, final=False))
    streamer.start()
    streamer.join(30)
    returned = not streamer.is_alive()
    release.set()
    holder.join()
    streamer.join()
    assert returned, "update_part waited for the database lock"
    assert _eventually(lambda: _stored_text(store.path, "p") == "a")
    store.close()


def test_a_steady_stream_is_written_about_every_interval(tmp_path: Path) -> None:
    store = _store(tmp_path)
    part = TextPart(id="p", session_id="s", message_id="m")
    started, seen = time.monotonic(), set()
    while time.monotonic() - started < 1.0:
        part = part.model_copy(update={"text": part.text + "y"})
        store.update_part(part, final=False)
        seen.add(_stored_text(store.path, "p"))
        time.sleep(0.005)
    streamed = store.writes
    # ~1 s at one write per 200 ms: the first write at once, then the timer's.
    assert 3 <= streamed <= 2 + 1.0 / COALESCE_S + 1, streamed
    assert len(seen) >= 3  # other readers saw progress while it streamed
    store.close()


def test_a_dirty_part_is_written_by_the_writer_thread(tmp_path: Path) -> None:
    store = _store(tmp_path)
    part = TextPart(id="p", session_id="s", message_id="m", text="a")
    store.update_part(part, final=False)  # a new part is due at once
    assert _eventually(lambda: _stored_text(store.path, "p") == "a")
    store.update_part(part.model_copy(update={"text": "ab"}), final=False)  # due an interval later
    assert _eventually(lambda: _stored_text(store.path, "p") == "ab")
    assert store.writes == 2
    store.close()


def test_reads_see_pending_parts_without_writing_them(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store._coalescer.interval = 3600  # a written part's next version stays pending
    first = TextPart(id="p1", session_id="s", message_id="m", text="1")
    second = TextPart(id="p2", session_id="s", message_id="m", text="2")
    store.update_part(second, final=False)
    store.update_part(first, final=False)
    assert _eventually(lambda: store.writes == 2)
    store.update_part(second.model_copy(update={"text": "22"}), final=False)  # pending
    writes = store.writes
    loaded = store.messages("s")[0].parts
    assert [(p.id, p.text) for p in loaded] == [("p1", "1"), ("p2", "22")]  # type: ignore[union-attr]
    assert store.writes == writes and _stored_text(store.path, "p2") == "2"
    loaded[1].text = "mutated"  # type: ignore[union-attr]
    assert store.messages("s")[0].parts[1].text == "22"  # type: ignore[union-attr]
    store.close()


def test_flush_and_close_write_what_is_pending(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for pid in ("p1", "p2"):
        store.update_part(TextPart(id=pid, session_id="s", message_id="m", text="a"), final=False)
        store.update_part(TextPart(id=pid, session_id="s", message_id="m", text="ab"), final=False)
    store.flush()
    assert _stored_text(store.path, "p1") == "ab"
    store.update_part(TextPart(id="p2", session_id="s", message_id="m", text="abc"), final=False)
    store.close()
    assert _stored_text(store.path, "p2") == "abc"


def test_deleting_a_session_drops_its_pending_parts(tmp_path: Path) -> None:
    store = _store(tmp_path, "parent")
    store.create_session(Session(id="child", parent_id="parent"))
    store.update_message(UserMessage(id="cm", session_id="child"))
    part = TextPart(id="cp", session_id="child", message_id="cm", text="a")
    store.update_part(part, final=False)
    store.update_part(part.model_copy(update={"text": "ab"}), final=False)
    store.delete_session("parent")
    time.sleep(COALESCE_S * 2)  # the timer finds nothing to resurrect (and does not fail)
    store.flush()
    assert _stored_text(store.path, "cp") is None
    store.close()
