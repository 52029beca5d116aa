"""A read-only notebook folder (a shared dataset checkout, a course's notebooks) runs with
its store in the user data folder, says so once, and `jupyter-agent sessions` finds the
sessions in either place. The folder is made read-only for real: a read-only bind mount
(bubblewrap), so even root cannot write it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_runner import TIMEOUT
from scripted_server import Reply

BWRAP = shutil.which("bwrap")


def _bwrap_works() -> bool:
    if BWRAP is None:
        return False
    probe = [BWRAP, "--bind", "/", "/", "--ro-bind", "/tmp", "/tmp", "--", "true"]
    return subprocess.run(probe, capture_output=True, check=False, timeout=30).returncode == 0


pytestmark = pytest.mark.skipif(
    not _bwrap_works(), reason="needs bubblewrap (bwrap) able to make a read-only bind mount"
)


def _cli(args: list[str], cwd: Path, env: dict[str, str], read_only: Path | None = None) -> Any:
    cmd = [sys.executable, "-m", "jupyter_agent.cli", *args]
    if read_only is not None:
        assert BWRAP is not None
        ro = str(read_only)
        cmd = [BWRAP, "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--ro-bind", ro, ro, "--", *cmd]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def test_a_read_only_folder_keeps_its_sessions_in_the_user_data_folder(
    tmp_path: Path, scripted_server: Any
) -> None:
    course = tmp_path / "course"
    course.mkdir()
    (course / "week1.ipynb").write_text("{}")
    data = tmp_path / "data"
    env = {**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test", "XDG_DATA_HOME": str(data)}
    env["JUPYTER_AGENT_DATA_DIR"] = ""  # the suite sets one; this is the user data folder of XDG
    run = ["run", "--notebook", str(course / "week1.ipynb"), "--model", "openai/test"]
    run += ["--api-base", scripted_server.base_url]

    scripted_server.queue(Reply(text="answered next to the notebook"))
    first = _cli([*run, "first question"], tmp_path, env)
    assert first.returncode == 0, first.stderr
    assert (course / ".jupyter-agent" / "sessions.db").is_file()
    before = sorted(p.name for p in course.rglob("*"))

    scripted_server.queue(Reply(text="answered from a read-only folder"))
    second = _cli([*run, "second question"], tmp_path, env, read_only=course)
    assert second.returncode == 0, second.stderr
    assert "answered from a read-only folder" in second.stdout
    (kept,) = (data / "jupyter-agent" / "stores").iterdir()
    notes = [line for line in second.stderr.splitlines() if "cannot be written" in line]
    assert len(notes) == 1 and str(kept) in notes[0] and str(course) in notes[0], second.stderr
    assert (kept / "sessions.db").is_file() and kept.name.startswith(f"{tmp_path.name}-course-")
    assert sorted(p.name for p in course.rglob("*")) == before  # nothing written next to it
    second_id = second.stderr.split("session: ")[-1].split()[0]

    listing = _cli(["sessions", "--notebook", str(course / "week1.ipynb"), "list"], tmp_path, env)
    assert listing.returncode == 0, listing.stderr
    rows = listing.stdout.strip().splitlines()
    assert len(rows) == 2 and rows[0].startswith(second_id) and f"[kept in {kept}]" in rows[0]
    shown = _cli(["sessions", "--notebook", str(course / "week1.ipynb"), "show", second_id], tmp_path, env)
    assert shown.returncode == 0 and "answered from a read-only folder" in shown.stdout, shown.stderr
