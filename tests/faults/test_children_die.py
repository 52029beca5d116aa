"""Children die with the run (issue 13 item 8).

SIGTERM or ``kill -9`` of a headless run during ``bash`` left ``sleep 300`` running and
the tool part "running" forever. Now the shell's process group goes with the run, and
the next start closes the part as interrupted, keeping what it had printed.
"""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_process import start_run, wait_for
from host_pids import pids_of, unique_sleep
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, ToolPart
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore

SLEEP = unique_sleep(300)
COMMAND = f'echo "partial-""output"; {SLEEP} & echo $! > child.pid; wait'
"""Prints ``partial-output`` (a string its own input does not contain), then waits on a child
(found by its command line: in the sandbox ``$!`` is a pid of the command's own namespace)."""


def _tool(folder: Path) -> tuple[ToolPart, AssistantMessage]:
    with SqliteStore.for_directory(folder) as store:
        [session] = store.list_sessions(None)
        for m in store.messages(session.id):
            for p in m.parts:
                if isinstance(p, ToolPart):
                    assert isinstance(m.info, AssistantMessage)
                    return p, m.info
    raise AssertionError("no tool part stored")


def _stored(text: str, folder: Path) -> bool:
    """True once a part row holds ``text`` (read-only, beside the running writer)."""
    conn = sqlite3.connect(f"file:{db_path(folder)}?mode=ro", uri=True, timeout=30)
    try:
        return conn.execute("SELECT 1 FROM part WHERE instr(data, ?) > 0", (text,)).fetchone() is not None
    except sqlite3.OperationalError:  # not created yet
        return False
    finally:
        conn.close()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_run_takes_its_children_and_the_part_is_closed(
    tmp_path: Path, scripted_server: Any, make_runtime: Any, sig: signal.Signals
) -> None:
    """User sees: no ``sleep 300`` left behind; the bash card says "Interrupted" with
    "partial-output" in it, and the answer is closed, after the next start."""
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": COMMAND}))]))
    run = start_run(scripted_server, tmp_path, "start a long job")
    pid_file = tmp_path / "child.pid"
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "", what="the child")
        assert pids_of(SLEEP), "the child runs"
        wait_for(lambda: _stored("partial-output", tmp_path), what="the partial output in the store")
        run.send_signal(sig)
        run.wait(timeout=20)
        wait_for(lambda: not pids_of(SLEEP), timeout=5, what=f"{SLEEP} to die")
    finally:
        run.kill()
        run.communicate()
    make_runtime()  # the next start (a kernel, a CLI run) sweeps what the dead run left
    part, message = _tool(tmp_path)
    assert part.state.status == "error", part.state
    assert part.state.metadata.get("interrupted") is True
    assert "partial-output" in str(part.state.metadata.get("output", ""))
    assert message.time.completed is not None and message.error is not None
