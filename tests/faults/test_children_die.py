"""Children die with the run (issue 13 item 8).

SIGTERM or ``kill -9`` of a headless run during ``bash`` left ``sleep 300`` running and
the tool part "running" forever. Now the shell's process group goes with the run, and
the next start closes the part as interrupted, keeping what it had printed.
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import alive, start_run, wait_for
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore

COMMAND = "echo partial-output; sleep 300 & echo $! > child.pid; wait"


def _tool(folder: Path) -> tuple[ToolPart, AssistantMessage]:
    with SqliteStore.for_directory(folder) as store:
        [session] = store.list_sessions(None)
        for m in store.messages(session.id):
            for p in m.parts:
                if isinstance(p, ToolPart):
                    assert isinstance(m.info, AssistantMessage)
                    return p, m.info
    raise AssertionError("no tool part stored")


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
        child = int(pid_file.read_text())
        time.sleep(0.6)  # let the streamed partial output reach the store
        run.send_signal(sig)
        run.wait(timeout=20)
        wait_for(lambda: not alive(child), timeout=5, what=f"child {child} to die")
    finally:
        run.kill()
        run.communicate()
    make_runtime()  # the next start (a kernel, a CLI run) sweeps what the dead run left
    part, message = _tool(tmp_path)
    assert part.state.status == "error", part.state
    assert part.state.metadata.get("interrupted") is True
    assert "partial-output" in str(part.state.metadata.get("output", ""))
    assert message.time.completed is not None and message.error is not None
