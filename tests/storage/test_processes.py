"""Real processes against one store: a SIGKILL mid-stream, and two concurrent writers."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from jupyter_agent.core.messages import PartAdapter, Session
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore

WRITER = str(Path(__file__).with_name("writer.py"))


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
    db = db_path(tmp_path)
    proc = _writer(db, 100_000, "stream", "ses_kill")
    assert proc.stdout is not None
    finished: list[str] = []
    deadline = time.monotonic() + 30
    while len(finished) < 200 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        finished.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert len(finished) == 200, proc.stderr.read() if proc.stderr else ""
    finished += proc.stdout.read().split()  # reported before the kill, not yet read
    stored = _texts(db)  # includes PRAGMA integrity_check == ok
    for n, pid in enumerate(finished):
        assert stored[pid] == f"done {n}"
    # Lost at most: the part being streamed, and one committed but not yet reported.
    assert len(set(stored) - set(finished)) <= 2
    with SqliteStore(db) as store:  # reopens cleanly after the crash
        history = store.messages("ses_kill")
        assert len(history[0].parts) == len(stored)
        assert store.notice is None


def test_two_writer_processes_lose_nothing(tmp_path: Path) -> None:
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
