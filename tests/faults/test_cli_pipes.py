"""``jupyter-agent … | head``: the reader leaves early. No traceback, and the run is kept.

The command's stdout is a real pipe whose reading end is closed after the first line,
as ``head -1`` does.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from faults_support import finished
from scripted_server import Reply

from jupyter_agent.core.messages import Session
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore


def _head_one(args: list[str], cwd: Path) -> tuple[str, str, int]:
    """Start the command, read one line of stdout, close the pipe; (line, stderr, exit code)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter_agent.cli", *args],
        cwd=cwd,
        env={**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    return line, err, proc.wait(timeout=120)


def test_a_listing_read_by_head_ends_quietly(tmp_path: Path) -> None:
    """User sees: the first line, and nothing on stderr (no BrokenPipeError)."""
    with SqliteStore.for_directory(tmp_path) as store:
        for n in range(3000):
            store.create_session(Session(id=f"ses_{n:05d}", title="t" * 60))
    line, err, code = _head_one(["sessions", "list"], tmp_path)
    assert line.startswith("ses_")
    assert err == "" and code == 1


def test_a_run_read_by_head_is_still_stored(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: the first line of the answer; the whole answer is in the session store."""
    answer = "".join(f"line {n}\n" for n in range(20_000))
    scripted_server.queue(Reply(text=answer, chunk_size=2000))
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "count"]
    line, err, _ = _head_one(args, tmp_path)
    assert line == "line 0\n"
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    texts = [text.strip() for kind, text in finished(db_path(tmp_path)).values() if kind == "text"]
    assert texts == ["count", answer.strip()]
