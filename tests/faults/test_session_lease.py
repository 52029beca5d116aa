"""One writer per session (issue 13 item 10).

Two ``run --continue`` on one session interleaved its history (Q_B, Q_A, A_B, A_A). The
second is now refused at once with "session busy in process N"; a lease held by a dead
process is free; two sessions in one store still run side by side.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import start_run, wait_for
from cli_runner import run_cli
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import TextPart, UserMessage
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore

SLOW = "touch started; while [ ! -e go ]; do sleep 0.05; done; echo released"
"""Holds the first run inside bash until the test creates ``go``."""


def _run(folder: Path, server: Any, *args: str) -> Any:
    return run_cli(["run", "--model", "openai/test", "--api-base", server.base_url, *args], folder)


def _prompts(folder: Path) -> list[str]:
    with SqliteStore.for_directory(folder) as store:
        [session] = store.list_sessions(None)
        return [
            p.text
            for m in store.messages(session.id)
            if isinstance(m.info, UserMessage)
            for p in m.parts
            if isinstance(p, TextPart)
        ]


def test_second_writer_is_refused_at_once(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: "error: session busy in process 1234: …" from the second run at once (it
    does not wait for the first); the first run's history is untouched by it."""
    scripted_server.queue(Reply(text="first answer"))
    assert _run(tmp_path, scripted_server, "Q0").returncode == 0
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": SLOW}))]))
    first = start_run(scripted_server, tmp_path, "--continue", "Q_A")
    try:
        wait_for(lambda: (tmp_path / "started").exists(), what="the first run's bash")
        second = _run(tmp_path, scripted_server, "--continue", "Q_B")
        assert second.returncode != 0
        assert f"session busy in process {first.pid}" in second.stderr
        assert "Traceback" not in second.stderr
        assert first.poll() is None  # refused while A still held it: nothing waited on the lease
        scripted_server.queue(Reply(text="answer A"))
        (tmp_path / "go").touch()
        _, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
    finally:
        first.kill()
    assert _prompts(tmp_path) == ["Q0", "Q_A"]
    # the lease went with the run: the next --continue works
    scripted_server.queue(Reply(text="answer C"))
    again = _run(tmp_path, scripted_server, "--continue", "Q_C")
    assert again.returncode == 0, again.stderr


def test_two_sessions_run_side_by_side(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: a second, new session answers while the first is still in its bash call."""
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": SLOW}))]))
    first = start_run(scripted_server, tmp_path, "Q_A")
    try:
        wait_for(lambda: (tmp_path / "started").exists(), what="the first run's bash")
        scripted_server.queue(Reply(text="answer B"))
        second = _run(tmp_path, scripted_server, "Q_B")
        assert second.returncode == 0, second.stderr
        assert "answer B" in second.stdout
        assert first.poll() is None  # B finished while A still ran
        scripted_server.queue(Reply(text="answer A"))
        (tmp_path / "go").touch()
        first.communicate(timeout=120)
        assert first.returncode == 0
    finally:
        first.kill()


def _dead_pid() -> int:
    code = "import os; print(os.getpid())"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    return int(proc.stdout)


def _plant_lease(folder: Path, session_id: str, pid: int, expires: int) -> None:
    conn = sqlite3.connect(db_path(folder))
    host = socket.gethostname()
    conn.execute("INSERT INTO session_lease VALUES (?,?,?,?)", (session_id, pid, host, expires))
    conn.commit()
    conn.close()


async def test_a_dead_or_expired_holder_does_not_hold(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """User sees: the prompt runs; a lease left by a killed process is not "busy"."""
    from jupyter_agent.storage.lease import SessionBusyError

    runtime = make_runtime()
    session = runtime.new_session()
    far = int(time.time() * 1000) + 3_600_000
    _plant_lease(tmp_path, session.id, _dead_pid(), far)
    scripted_server.queue(Reply(text="ran"))
    await runtime.prompt("go", session_id=session.id)
    # a live pid that started after the lease's last renewal (in 1970 here) reused the pid: free
    _plant_lease(tmp_path, session.id, os.getppid(), 1)
    scripted_server.queue(Reply(text="ran again"))
    await runtime.prompt("again", session_id=session.id)
    # a live, unexpired holder is refused without writing anything
    _plant_lease(tmp_path, session.id, os.getppid(), far)
    before = len(runtime.store.messages(session.id))
    with pytest.raises(SessionBusyError, match=f"session busy in process {os.getppid()}"):
        await runtime.prompt("refused", session_id=session.id)
    assert len(runtime.store.messages(session.id)) == before


def test_a_paused_holder_keeps_its_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kernel paused (or whose renewal waited behind a computation holding the GIL) for longer
    than the lease is still running the session: taking it would interleave two histories when
    it resumes. User sees: "session busy in process N … It has not renewed its claim for 60 s:
    if it is stuck, stop it (kill N)." A process that reused a dead holder's pid does not hold it."""
    from jupyter_agent.storage import lease

    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        wait_for(lambda: lease._started_ms(holder.pid) is not None, what="the holder's /proc entry")
        time.sleep(lease.START_SLACK_MS / 1000 + 0.5)  # it started well before the renewal below
        store = SqliteStore.for_directory(tmp_path)
        renewed = int(time.time() * 1000)
        _plant_lease(tmp_path, "ses_paused", holder.pid, renewed + lease.TTL_MS)
        later = renewed + lease.TTL_MS + 30_000  # a minute after its last renewal
        monkeypatch.setattr(lease, "now_ms", lambda: later)
        with pytest.raises(lease.SessionBusyError) as busy:
            store.leases.claim("ses_paused")
        assert f"session busy in process {holder.pid}" in str(busy.value)
        assert f"not renewed its claim for 60 s: if it is stuck, stop it (kill {holder.pid})" in str(
            busy.value
        )
        assert "ses_paused" not in store.leases.stale()  # and start-up recovery leaves its parts alone
        # the same pid, but the lease was renewed before this process started: a reused pid
        _plant_lease(tmp_path, "ses_reused", holder.pid, renewed - 60_000 + lease.TTL_MS)
        assert store.leases.claim("ses_reused") is True
        holder.kill()
        holder.wait()
        assert store.leases.claim("ses_paused") is True  # the holder is gone: free at once
        store.close()
    finally:
        holder.kill()
