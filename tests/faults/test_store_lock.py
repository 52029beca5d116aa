"""Issue 27.3: a session store locked by another process is said, and Ctrl-C / Stop end the wait.

Before, ``run --continue`` waited up to 300 s in silence while another process held a write
transaction, and Ctrl-C did nothing. Now the wait is announced after a second, naming the
holder's pid, and Ctrl-C or Stop end it at once with nothing written.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_process import start_run, wait_for
from scripted_server import Reply

from jupyter_agent.core.messages import Session
from jupyter_agent.storage import database, lock_wait
from jupyter_agent.storage.sqlite_store import SqliteStore, StoreWaitStopped

HOLD = (
    "import sqlite3, sys, time\n"
    "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
    "c.execute('BEGIN IMMEDIATE')\n"
    'c.execute("UPDATE session SET time_updated = time_updated")\n'
    "print('held', flush=True)\n"
    "time.sleep(300)\n"
)


@contextlib.contextmanager
def held(db: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding a write transaction on ``db`` (a stuck kernel, a sqlite3 shell)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def _store_with_a_session(folder: Path) -> tuple[Path, int]:
    with SqliteStore.for_directory(folder) as store:
        store.create_session(Session(id="ses_locked"))
        rows = len(store.messages("ses_locked"))
        return store.path, rows


def test_cli_says_who_holds_the_store_and_ctrl_c_ends_the_wait(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: "note: The session store … is locked by another process (pid N: python -c …);
    waiting … Press Ctrl-C (or Stop) to give up", then on Ctrl-C "error: stopped", exit 130 at
    once; the session has nothing new."""
    db, rows = _store_with_a_session(tmp_path)
    scripted_server.queue(Reply(text="never asked"))
    with held(db) as holder:
        proc = start_run(scripted_server, tmp_path, "--continue", "next")
        try:
            assert proc.stderr is not None
            line = proc.stderr.readline()  # the notice, once the wait passed a second
            assert line.startswith(
                f"note: The session store {db} is locked by another process (pid {holder.pid}"
            )
            assert "Press Ctrl-C (or Stop) to give up: nothing is half-written." in line
            stopped_at = time.monotonic()
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        assert time.monotonic() - stopped_at < 15  # not the 300 s the store is held
        assert proc.returncode == 130, err
        assert "Traceback" not in err and "error: stopped" in err
    assert scripted_server.requests == []
    with SqliteStore(db) as store:
        assert [s.id for s in store.list_sessions(None)] == ["ses_locked"]
        assert len(store.messages("ses_locked")) == rows


@pytest.fixture
def notices(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float, str]]:
    said: list[tuple[float, str]] = []
    monkeypatch.setattr(lock_wait.waits, "notify", lambda text: said.append((time.monotonic(), text)))
    monkeypatch.setattr(database, "BUSY_GIVE_UP_S", 30.0)  # the old code blocks: fail, do not hang
    return said


async def test_stop_ends_the_wait_with_nothing_written(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, notices: list[tuple[float, str]]
) -> None:
    """Stop while a prompt waits for the lock: the prompt ends at once; no session, no message."""
    runtime = make_runtime()
    db = runtime.store.path
    runtime.store.create_session(Session(id="ses_before"))
    scripted_model.queue(Reply(text="never asked"))
    with held(db) as holder:
        started = time.monotonic()
        task = asyncio.create_task(runtime.prompt("hi"))
        while not notices:
            assert time.monotonic() - started < 20, "no notice"
            await asyncio.sleep(0.05)
        said_at, text = notices[0]
        assert said_at - started < 10  # said after about a second, not at the end
        assert f"is locked by another process (pid {holder.pid}" in text
        stopped_at = time.monotonic()
        runtime.stop()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - stopped_at < 10
    assert [s.id for s in runtime.store.list_sessions(None)] == ["ses_before"]
    assert scripted_model.requests == []


def test_a_write_waiting_in_a_thread_gives_up_on_stop(
    tmp_path: Path, notices: list[tuple[float, str]]
) -> None:
    """A write already waiting (the coalescer's thread, a write mid-run) ends at once on Stop
    with "Stopped waiting for the session store …; nothing more was written"."""
    db, _ = _store_with_a_session(tmp_path)
    with SqliteStore(db) as store, held(db):
        box: dict[str, BaseException] = {}

        def write() -> None:
            try:
                store.create_session(Session(id="ses_new"))
            except BaseException as exc:  # handed to the test
                box["error"] = exc

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        wait_for(lambda: bool(notices), timeout=20, what="the notice")
        stopped_at = time.monotonic()
        lock_wait.waits.stop()
        thread.join(15)
        assert not thread.is_alive() and time.monotonic() - stopped_at < 10
        assert isinstance(box.get("error"), StoreWaitStopped)
        assert "nothing more was written" in str(box["error"])
    with SqliteStore(db) as store:
        assert [s.id for s in store.list_sessions(None)] == ["ses_locked"]
        store.create_session(Session(id="ses_after"))  # a later write waits again as usual
