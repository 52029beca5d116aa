"""Real processes against one store: a SIGKILL mid-stream, and two concurrent writers."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from jupyter_agent.core.messages import PartAdapter, TextPart
from jupyter_agent.storage.sqlite_store import SqliteStore

WRITER = str(Path(__file__).with_name("writer.py"))


def _parts(db: Path) -> dict[str, str]:
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, data FROM part").fetchall()
    conn.close()
    return {pid: PartAdapter.validate_json(data).text for pid, data in rows}  # type: ignore[union-attr]


def test_sigkill_mid_stream_keeps_completed_parts(tmp_path: Path) -> None:
    db = SqliteStore.for_directory(tmp_path).path
    proc = subprocess.Popen(
        [sys.executable, WRITER, str(db), "100000", "stream"], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    finished: list[str] = []
    deadline = time.monotonic() + 60
    while len(finished) < 30 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if line:
            finished.append(line.strip())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert len(finished) >= 30
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    stored = _parts(db)
    for n, pid in enumerate(finished):
        assert stored[pid] == f"done {n}"
    store = SqliteStore(db)  # reopens cleanly after the crash
    assert store.list_sessions()
    store.close()


def test_two_writer_processes_lose_nothing(tmp_path: Path) -> None:
    db = SqliteStore.for_directory(tmp_path).path
    procs = [
        subprocess.Popen(
            [sys.executable, WRITER, str(db), "1000", "final"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=240) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=False):
        assert proc.returncode == 0, err
        assert "locked" not in err
    ids = [line for out, _ in outputs for line in out.split()]
    assert len(ids) == 2000
    stored = _parts(db)
    assert set(ids) <= set(stored) and len(stored) == 2000
    assert all(TextPart is not None and text.startswith("done ") for text in stored.values())
