"""Faults in the session store: damaged and newer files, crashed and concurrent writers.

Real SQLite files, real processes and real kernels. A damaged file is never deleted (it
is moved aside); a newer one is never touched; a crash loses at most the part being
streamed; concurrent writers lose nothing.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import kernel_harness
import pytest
from faults_support import assert_kept, finished, first_turn, parts
from kernel_harness import wait_widget_idle as _wait_idle
from scripted_server import Reply

from jupyter_agent.core.messages import PartAdapter, Session, TextPart
from jupyter_agent.storage import migrations
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore, StoreError, StoreVersionError

WRITER = str(Path(__file__).with_name("writer.py"))


def _filled_db(folder: Path) -> Path:
    with SqliteStore.for_directory(folder) as store:
        store.create_session(Session(id="ses_1", title="keep me"))
    return db_path(folder)


def _notices(kernel: Any) -> list[str]:
    """Notices a live widget showed, and the transcript lines a headless run left in the cell."""
    shown = [
        c.get("text", "")
        for _, c in kernel_harness.custom_messages(kernel.iopub)
        if c.get("kind") == "notice"
    ]
    transcripts = [
        line
        for m in kernel.iopub
        if m["msg_type"] in ("display_data", "update_display_data")
        for line in m["content"]["data"].get("text/plain", "").splitlines()
    ]
    return shown + transcripts


# ------------------------------------------------------------ damaged files


def test_garbage_file_is_moved_aside_with_its_sidecars(tmp_path: Path) -> None:
    """User sees: a notice naming the file and where it was moved; "Nothing was deleted"."""
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
    """User sees: a notice that says "malformed"; an empty session list; the old file kept."""
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
    """User sees: two notices naming two different files; neither damaged file is overwritten."""
    db = db_path(tmp_path)
    for n in range(2):
        db.write_bytes(b"garbage %d" % n * 50)
        SqliteStore(db).close()
    kept = sorted(p.read_bytes()[:9] for p in db.parent.glob("sessions.db.corrupt-*"))
    assert kept == [b"garbage 0", b"garbage 1"]


def test_unopenable_path_is_an_error_not_a_corruption(tmp_path: Path) -> None:
    """User sees: the store's path and what to do (a folder is in the way); nothing is moved."""
    db = db_path(tmp_path)
    db.mkdir()  # a folder where the file should be
    with pytest.raises(StoreError, match="is a folder, not the session store file"):
        SqliteStore(db)
    assert db.is_dir() and not list(db.parent.glob("*.corrupt-*"))


def test_corrupt_store_in_a_kernel(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees: a notice that the file was moved aside, and the prompt still works."""
    folder = tmp_path / ".jupyter-agent"
    folder.mkdir()
    (folder / "sessions.db").write_bytes(b"garbage" * 1000)
    scripted_server.queue(Reply(text="works anyway"))
    kernel = start_kernel()
    assert kernel.execute("%agent --wait hello").status == "ok"
    assert any("moved to" in n and "sessions.db.corrupt-" in n for n in _notices(kernel))
    assert next(iter(folder.glob("sessions.db.corrupt-*"))).read_bytes() == b"garbage" * 1000
    assert sorted(v for v in finished(folder / "sessions.db").values()) == [
        ("text", "hello"),
        ("text", "works anyway"),
    ]


# ------------------------------------------------------------ newer schema


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    """User sees: which version wrote the file, which this one supports, and `pip install -U`."""
    db = _filled_db(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 5,))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(StoreVersionError) as info:
        SqliteStore(db)
    message = str(info.value)
    assert str(db) in message and "pip install -U jupyter-agent-kernel" in message
    assert f"schema version {migrations.SCHEMA_VERSION + 5}" in message
    assert f"supports schema version {migrations.SCHEMA_VERSION}" in message
    assert db.read_bytes() == before


def test_newer_schema_with_a_leftover_wal_is_not_checkpointed(tmp_path: Path) -> None:
    """User sees: the same refusal; the newer kernel's WAL is not folded into the file."""
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


def test_newer_store_is_refused_in_a_kernel(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: which version is needed (one line, raised: the cell blocks); the file is
    untouched; no traceback."""
    db = _filled_db(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    kernel = start_kernel()
    result = kernel.execute("%agent --wait hello")  # a blocking cell: the problem is raised
    assert result.status == "error" and result.error is not None
    assert result.error["ename"] == "AgentRunError"
    assert "newer jupyter-agent" in result.error["evalue"] and "Traceback" not in result.stdout
    assert db.read_bytes() == before


# ------------------------------------------------------------ crashes and concurrent writers


def _writer(db: Path, count: int, mode: str, session_id: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, WRITER, str(db), str(count), mode, session_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _texts(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute("SELECT id, data FROM part").fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    return {pid: getattr(PartAdapter.validate_json(data), "text", "") for pid, data in rows}


def test_sigkill_mid_stream_keeps_every_finished_part(tmp_path: Path) -> None:
    """User sees (after a crash): every part that had finished, and a store that opens cleanly."""
    db = db_path(tmp_path)
    proc = _writer(db, 100_000, "stream", "ses_kill")
    assert proc.stdout is not None
    finished_ids: list[str] = []
    deadline = time.monotonic() + 30
    while len(finished_ids) < 200 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        finished_ids.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert len(finished_ids) == 200, proc.stderr.read() if proc.stderr else ""
    finished_ids += proc.stdout.read().split()  # reported before the kill, not yet read
    stored = _texts(db)  # includes PRAGMA integrity_check == ok
    for n, pid in enumerate(finished_ids):
        assert stored[pid] == f"done {n}"
    # Lost at most: the part being streamed, and one committed but not yet reported.
    assert len(set(stored) - set(finished_ids)) <= 2
    with SqliteStore(db) as store:  # reopens cleanly after the crash
        history = store.messages("ses_kill")
        assert len(history[0].parts) == len(stored)
        assert store.notice is None


def test_two_writer_processes_lose_nothing(tmp_path: Path) -> None:
    """User sees: both processes' parts, in order; no "database is locked" anywhere."""
    db = db_path(tmp_path)  # neither the file nor its tables exist yet: both race to create
    procs = [_writer(db, 1000, "final", "ses_shared") for _ in range(2)]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert err == ""  # no exception, no warning, no "database is locked"
    reported = [line for out, _ in outputs for line in out.split()]
    assert len(reported) == len(set(reported)) == 2000
    stored = _texts(db)
    assert set(stored) == set(reported)
    with SqliteStore(db) as store:
        history = store.messages("ses_shared")
        assert [len(m.parts) for m in history] == [1000, 1000]
        for entry in history:
            texts = [getattr(p, "text", "") for p in entry.parts]
            assert texts == [f"done {n}" for n in range(1000)]  # in id order, as written
        assert [s.id for s in store.list_sessions()] == ["ses_shared"]
        assert isinstance(store.get_session("ses_shared"), Session)


async def test_two_sessions_write_one_store_at_once(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: both answers; no "database is locked"."""
    runtime = make_runtime()
    other = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.default = Reply(text="concurrent answer " * 40, chunk_size=3, delay_per_chunk=0.002)
    first, second = await asyncio.gather(runtime.prompt("one", session_id=sid), other.prompt("two"))
    for rt, session in ((runtime, first), (other, second)):
        texts = [p.text for p in parts(rt, session, TextPart)]
        assert texts[-1] == ("concurrent answer " * 40)
    assert_kept(runtime.store.path, before)


@pytest.mark.kernel
def test_two_kernels_write_one_store(scripted_server: Any, tmp_path: Path) -> None:
    """User sees: two notebooks in one folder both stream their answers; each keeps its own."""
    answer = "streamed from a kernel " * 60
    env = {
        "JUPYTER_AGENT_MODEL": scripted_server.model,
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
    }
    kernels = []
    try:
        for name in ("a.ipynb", "b.ipynb"):
            notebook = str(tmp_path / name)
            kernel = kernel_harness.Kernel(
                tmp_path, {**env, "JUPYTER_AGENT_NOTEBOOK": notebook, "JPY_SESSION_NAME": notebook}
            )
            kernels.append(kernel)
            assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        scripted_server.queue(Reply(text="first notebook's earlier answer"))
        assert kernels[0].execute("%agent --wait before").status == "ok"
        db = db_path(tmp_path)
        before = finished(db)
        scripted_server.default = Reply(text=answer, chunk_size=4, delay_per_chunk=0.003)
        for n, kernel in enumerate(kernels):  # both run in the background at the same time
            assert kernel.execute(f"%agent --new question {n}").status == "ok"
        for kernel in kernels:
            _wait_idle(kernel)
            assert not [n for n in _notices(kernel) if "locked" in n or "rror" in n], _notices(kernel)
        after = assert_kept(db, before)
        with SqliteStore(db) as store:
            by_notebook = {Path(s.notebook_path or "").name: s for s in store.list_sessions(None)}
            assert sorted(by_notebook) == ["a.ipynb", "b.ipynb"]
        texts = [value for _, value in after.values()]
        assert texts.count(answer) == 2 and "question 0" in texts and "question 1" in texts
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        for kernel in kernels:
            kernel.shutdown()
