"""A session store that cannot be used, seen from the ``jupyter-agent`` command.

Damaged pages, newer or foreign files, a read-only file system, a full disk: each is one
line naming the file, what is wrong and what to do (exit 1), never a traceback, and the
user's file is never changed unless it is damaged (then it is moved aside, never deleted).
Read-only and full file systems are real: a small tmpfs, mounted when the tests may
mount (root, as in the project's CI container); skipped otherwise.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from faults_support import finished
from scripted_server import Reply

from jupyter_agent.core.messages import Session, TextPart, UserMessage
from jupyter_agent.storage import migrations
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore


def _one_line(result: Any) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


def _store_with_history(folder: Path, messages: int = 60) -> Path:
    """A store with one session and enough text to span many pages."""
    with SqliteStore.for_directory(folder) as store:
        store.create_session(Session(id="ses_1", title="keep me"))
        for n in range(messages):
            mid = f"msg_{n:04d}"
            store.update_message(UserMessage(id=mid, session_id="ses_1"))
            text = TextPart(id=f"prt_{n:04d}", message_id=mid, session_id="ses_1", text="x" * 3000)
            store.update_part(text)
    return db_path(folder)


def test_damaged_interior_page_is_moved_aside(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: "The session database … is damaged … moved to …corrupt-…", and the run works."""
    db = _store_with_history(tmp_path)
    data = bytearray(db.read_bytes())
    page = 4096
    last = len(data) // page - 2  # a leaf page of the part table, far from the schema
    data[last * page : last * page + 64] = b"\xee" * 64
    db.write_bytes(bytes(data))
    scripted_server.queue(Reply(text="fresh start"))
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    [notice] = [line for line in result.stderr.splitlines() if "is damaged" in line]
    [moved] = list(db.parent.glob("sessions.db.corrupt-*"))
    assert f"moved to {moved}" in notice and f"sqlite3 {moved} .recover" in notice, result.stderr
    assert moved.read_bytes() == bytes(data)
    assert ("text", "fresh start") in finished(db).values()


def test_show_of_a_session_in_a_damaged_store(tmp_path: Path) -> None:
    """User sees: "note: The session database … is damaged … moved to …", then "error: No
    session 'ses_1' … (it may be in the damaged store that was just moved aside)", exit 2."""
    db = _store_with_history(tmp_path)
    data = bytearray(db.read_bytes())
    last = len(data) // 4096 - 2
    data[last * 4096 : last * 4096 + 64] = b"\xee" * 64
    db.write_bytes(bytes(data))
    result = run_cli(["sessions", "show", "ses_1"], tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    note, error = [line for line in result.stderr.splitlines() if line.strip()]
    assert note.startswith(f"note: The session database {db} is damaged")
    assert error.startswith("error: No session 'ses_1'")
    assert error.endswith("(it may be in the damaged store that was just moved aside)")


def test_newer_store_is_one_line(tmp_path: Path) -> None:
    """User sees: the newer version, `pip install -U jupyter-agent-kernel`, exit 1; the file untouched."""
    db = _store_with_history(tmp_path, 1)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 3,))
    conn.commit()
    conn.close()
    before = db.read_bytes()
    for args in (["sessions", "list"], ["sessions", "show", "ses_1"], ["run", "--model", "openai/x", "hi"]):
        result = run_cli(args, tmp_path)
        line = _one_line(result)
        assert result.returncode == 1
        assert str(db) in line and "pip install -U jupyter-agent-kernel" in line
    assert db.read_bytes() == before


def test_version_that_is_not_a_number(tmp_path: Path) -> None:
    """User sees: "… holds a schema version that is not a number ('two') …", exit 1, untouched."""
    db = _store_with_history(tmp_path, 1)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_version(version) VALUES ('two')")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    result = run_cli(["sessions", "list"], tmp_path)
    line = _one_line(result)
    assert result.returncode == 1
    assert str(db) in line and "not a number ('two')" in line
    assert db.read_bytes() == before


def test_foreign_sqlite_file_is_left_alone(tmp_path: Path) -> None:
    """User sees: "… is an SQLite database that jupyter-agent did not create (tables: birds)"."""
    db = db_path(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE birds (name TEXT)")
    conn.execute("INSERT INTO birds VALUES ('robin')")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    result = run_cli(["sessions", "list"], tmp_path)
    line = _one_line(result)
    assert result.returncode == 1
    assert str(db) in line and "did not create (tables: birds)" in line
    assert db.read_bytes() == before
    assert not list(db.parent.glob("*.corrupt-*"))


# ------------------------------------------------------------ real small file systems


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs at ``tmp_path/fs``; skipped where mounting is not allowed."""
    mount = tmp_path / "fs"
    mount.mkdir()
    if not shutil.which("mount"):
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _remount_read_only(mount: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)


def test_read_only_file_system(tmpfs: Path, tmp_path: Path, scripted_server: Any) -> None:
    """A notebook folder on a read-only file system used to stop every command; now its new
    sessions go to the user data folder (said once), and the old store that cannot be opened
    there any more is named in one note. No traceback, exit 0."""
    _store_with_history(tmpfs, 1)
    _remount_read_only(tmpfs)
    data = tmp_path / "data"
    scripted_server.queue(Reply(text="answered anyway"))
    run = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"]
    done = run_cli(run, tmpfs, XDG_DATA_HOME=str(data), JUPYTER_AGENT_DATA_DIR="")
    assert done.returncode == 0 and "answered anyway" in done.stdout, done.stderr
    assert "Traceback" not in done.stderr
    notes = [line for line in done.stderr.splitlines() if "cannot be written" in line]
    assert len(notes) == 1 and str(data / "jupyter-agent" / "stores") in notes[0]
    listed = run_cli(["sessions", "list"], tmpfs, XDG_DATA_HOME=str(data), JUPYTER_AGENT_DATA_DIR="")
    assert listed.returncode == 0 and "Traceback" not in listed.stderr
    assert len(listed.stdout.strip().splitlines()) == 1  # the new session
    assert f"the sessions kept in {tmpfs / '.jupyter-agent'} cannot be read" in listed.stderr


def test_read_only_file_system_without_a_store(tmpfs: Path, tmp_path: Path) -> None:
    """User sees: the notebook folder is read-only, so its sessions go to the user data folder;
    when that cannot be written either, which folder could not be created and what to do."""
    _remount_read_only(tmpfs)
    data = tmp_path / "data"
    listed = run_cli(["sessions", "list"], tmpfs, XDG_DATA_HOME=str(data), JUPYTER_AGENT_DATA_DIR="")
    assert listed.returncode == 0 and "cannot be written" in listed.stderr, listed.stderr
    nowhere = run_cli(
        ["sessions", "list"], tmpfs, XDG_DATA_HOME=str(tmpfs / "data"), JUPYTER_AGENT_DATA_DIR=""
    )
    line = _one_line(nowhere)
    assert nowhere.returncode == 1
    assert f"Cannot create the session folder {tmpfs / 'data' / 'jupyter-agent' / 'stores'}" in line
    assert "Set `store` to a folder you can write to" in line


def _fill(folder: Path) -> None:
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 4096, 512, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)


def test_full_disk_says_so_before_sending(tmpfs: Path, scripted_server: Any) -> None:
    """User sees: "The disk holding the session store … is full …", exit 1; nothing was sent
    to the model, and the sessions stored before are intact."""
    db = _store_with_history(tmpfs, 3)
    before = finished(db)
    _fill(tmpfs)
    scripted_server.queue(Reply(text="never asked"))
    result = run_cli(["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"], tmpfs)
    line = _one_line(result)
    assert result.returncode == 1
    assert str(db) in line and "is full" in line
    assert scripted_server.requests == []
    (tmpfs / "filler").unlink()
    assert {k: v for k, v in finished(db).items() if k in before} == before


def db_path_of(folder: Path) -> Path:
    return folder / ".jupyter-agent" / "sessions.db"
