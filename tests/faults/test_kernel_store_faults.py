"""A session store that cannot be used, seen from a notebook: the same one message as the CLI.

The store folder ``.jupyter-agent`` is itself a small real tmpfs, so it can be made
read-only or full under a live kernel; mounting needs root (the project's CI container),
so these cases are skipped elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from faults_support import finished, one_message
from kernel_harness import custom_messages
from scripted_server import Reply
from test_store_cli_faults import _fill, _store_with_history

from jupyter_agent.storage.paths import db_path

pytestmark = pytest.mark.kernel


@pytest.fixture
def store_fs(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/.jupyter-agent`` as a 2 MB tmpfs; yields the notebook folder."""
    folder = tmp_path / ".jupyter-agent"
    folder.mkdir()
    if not shutil.which("mount"):
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield tmp_path
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _message(result: Any) -> str:
    return one_message(result)  # printed, or the one line a headless cell raises


def test_read_only_store_in_a_kernel(store_fs: Path, start_kernel: Any, scripted_server: Any) -> None:
    """User sees: "Cannot write the session store <path> … read-only …" in the cell; nothing sent."""
    db = _store_with_history(store_fs, 1)
    subprocess.run(["mount", "-o", "remount,ro", str(db.parent)], check=True)
    kernel = start_kernel()
    for cell in ("%agent --wait hello", "%agent sessions"):
        out = _message(kernel.execute(cell))
        assert str(db) in out and "read-only" in out, (cell, out)
    assert scripted_server.requests == []


def test_full_disk_in_a_kernel_says_so_before_sending(
    store_fs: Path, start_kernel: Any, scripted_server: Any
) -> None:
    """User sees: "The disk holding the session store … is full …"; the model was not asked
    and the sessions stored before are intact."""
    db = _store_with_history(store_fs, 3)
    before = finished(db)
    kernel = start_kernel()
    assert kernel.execute("%agent sessions").status == "ok"  # the store opens while there is room
    _fill(db.parent)
    out = _message(kernel.execute("%agent --wait hello"))
    assert str(db) in out and "is full" in out, out
    assert scripted_server.requests == []
    (db.parent / "filler").unlink()
    assert {k: v for k, v in finished(db).items() if k in before} == before


def test_damaged_store_in_a_kernel_is_moved_aside(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """User sees: a notice that the damaged file was moved aside, then the answer."""
    db = _store_with_history(tmp_path)
    data = bytearray(db.read_bytes())
    page = 4096
    last = len(data) // page - 2  # a leaf page of the part table: `list` would still work
    data[last * page : last * page + 64] = b"\xee" * 64
    db.write_bytes(bytes(data))
    scripted_server.queue(Reply(text="fresh start"))
    kernel = start_kernel()
    result = kernel.execute("%agent --wait hello")
    assert result.status == "ok" and "Traceback" not in result.stdout + result.stderr
    live = [c.get("text", "") for _, c in custom_messages(kernel.iopub) if c.get("kind") == "notice"]
    (shown,) = [o for o in result.outputs if "text/plain" in o.get("data", {}) and o.get("metadata")]
    kept = str(shown["data"]["text/plain"])  # the transcript that replaces the live view
    assert any("is damaged" in n and "moved to" in n for n in [*live, kept]), (live, kept)
    assert "fresh start" in str(result.outputs)
    [moved] = list(db.parent.glob("sessions.db.corrupt-*"))
    assert moved.read_bytes() == bytes(data)
    assert db_path(tmp_path) == db


def test_full_disk_in_a_running_session_is_one_sentence(
    store_fs: Path, start_kernel: Any, scripted_server: Any
) -> None:
    """The session exists and the disk fills before the next prompt. User sees, in the
    cell: "The disk holding the session store … is full …" (no exception class name);
    the model was not asked again and the first answer is kept."""
    scripted_server.queue(Reply(text="first answer"))
    kernel = start_kernel()
    assert "first answer" in str(kernel.execute("%agent --wait hello").outputs)
    db = db_path(store_fs)
    before = finished(db)
    _fill(db.parent)
    result = kernel.execute("%agent --wait again")
    shown = _message(result) + str(result.outputs)
    assert f"The disk holding the session store {db} is full" in shown, shown
    assert "StoreError" not in shown and "Error:" not in shown, shown
    assert len(scripted_server.requests) == 1
    (db.parent / "filler").unlink()
    assert {k: v for k, v in finished(db).items() if k in before} == before
