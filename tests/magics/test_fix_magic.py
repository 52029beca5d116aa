"""``%agent fix [CELL]`` in a real kernel: the failed cell, its traceback and the variables it
names go to the ``fix`` agent; a cell that did not raise, or no failure at all, is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply

from jupyter_agent.core.messages import UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore

pytestmark = pytest.mark.kernel


def test_agent_fix_sends_the_failed_cell_to_the_fix_agent(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    kernel = start_kernel()  # In [1] is %load_ext
    nothing = kernel.execute("%agent fix")
    assert (
        nothing.stdout.strip().startswith("No cell has raised an error") and "Traceback" not in nothing.stdout
    )
    assert kernel.execute("sales = {'jan': 10, 'feb': 12}").status == "ok"  # In [3]
    failed = kernel.execute("total = sales['jan'] + sales['mar']")  # In [4]
    assert failed.status == "error"
    fine = kernel.execute("%agent fix 3")
    assert fine.stdout.strip().startswith("Cell 3 has no error to fix") and not scripted_server.requests
    scripted_server.queue(Reply(text="There is no 'mar' in sales: use .get('mar', 0)."))
    done = kernel.execute("%agent fix")
    assert done.status == "ok", done.error
    (request,) = scripted_server.requests
    asked = request["body"]["messages"][-1]["content"]
    asked = asked if isinstance(asked, str) else json.dumps(asked)
    assert (
        "Fix `In [4]`: KeyError: 'mar'" in asked and "replace that cell" in asked
    )  # words, then instructions
    assert (
        "total = sales['jan'] + sales['mar']" in asked and "<traceback_" in asked and 'ref="@sales"' in asked
    )
    assert "notebook_edit" in {t["function"]["name"] for t in request["body"]["tools"]}
    # the transcript echoes what the user asked, not the blocks
    (shown,) = [o for o in done.outputs if "text/plain" in o.get("data", {}) and o.get("metadata")]
    plain = shown["data"]["text/plain"]
    assert "You: Fix `In [4]`: KeyError" in plain and "<cell_" not in plain and "notebook_edit" not in plain
    store = SqliteStore.for_directory(tmp_path)
    try:
        users = [m.info for s in store.list_sessions(None) for m in store.messages(s.id)]
        assert [u.agent for u in users if isinstance(u, UserMessage)] == ["fix"]
    finally:
        store.close()


def test_clumsy_fix_requests_are_one_line_and_odd_errors_still_reach_the_agent(
    start_kernel: Any, scripted_server: Any
) -> None:
    """A cell number that never ran, a cell id that does not exist: one line each, nothing sent.
    A file name that is not UTF-8 in the error: the fix request still reaches the agent."""
    kernel = start_kernel()
    failed = kernel.execute("open(b'/nonexistent/sales-\\xff.csv'.decode('utf-8', 'surrogateescape'))")
    assert failed.status == "error"
    for cell in ("99", "[7]", "0f3c-not-a-cell"):
        out = kernel.execute(f"%agent fix {cell}")
        assert out.status == "ok" and out.error is None, (cell, out.error)
        assert out.stdout.strip().startswith(f"Cell {cell} has no error to fix"), (cell, out.stdout)
        assert "Traceback" not in out.stdout + out.stderr and not scripted_server.requests
    scripted_server.queue(Reply(text="The file name is not UTF-8."))
    done = kernel.execute("%agent fix [2]")
    assert done.status == "ok", done.error
    assert "Traceback" not in done.stdout + done.stderr, done.stdout + done.stderr
    assert len(scripted_server.requests) == 1, (done.stdout, done.stderr, done.outputs)
    asked = json.dumps(scripted_server.requests[0]["body"]["messages"][-1])
    assert "Fix `In [2]`" in asked and "FileNotFoundError" in asked and "sales-" in asked
