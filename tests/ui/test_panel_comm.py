"""The side panel's comm protocol against a real kernel, driven as the panel drives it.

The browser tests (tests/browser/test_side_panel.py) show the same flows in JupyterLab;
these pin the wire: hello, streaming, notebook operations, completions, sessions, history.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import kernel_harness
import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.ui.comm_target import TARGET

pytestmark = pytest.mark.kernel


class Panel:
    """One comm to the ``jupyter_agent`` target, with the messages the kernel sent on it."""

    def __init__(self, kernel: Any, notebook_path: str = "analysis.ipynb") -> None:
        self.kernel = kernel
        self.comm_id = kernel.comm_open(TARGET, {"type": "hello", "notebook_path": notebook_path})

    @property
    def seen(self) -> list[dict[str, Any]]:
        """Everything on this comm so far (also what ``kernel.execute`` read off iopub)."""
        return [
            m["content"]["data"]
            for m in self.kernel.iopub
            if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == self.comm_id
        ]

    def send(self, **data: Any) -> None:
        self.kernel.comm_data(self.comm_id, data)

    def wait(self, kind: str, predicate: Any = lambda m: True, timeout: float = 30) -> dict[str, Any]:
        for m in self.seen:
            if m.get("kind") == kind and predicate(m):
                return m

        def match(msg: dict[str, Any]) -> bool:
            if msg["msg_type"] != "comm_msg" or msg["content"]["comm_id"] != self.comm_id:
                return False
            data = msg["content"]["data"]
            return bool(data.get("kind") == kind and predicate(data))

        return dict(self.kernel.wait_for(match, timeout)["content"]["data"])

    def wait_after(self, mark: int, kind: str, timeout: float = 30) -> dict[str, Any]:
        """The first ``kind`` message at or after position ``mark`` of ``seen``."""

        def found() -> dict[str, Any] | None:
            return next((m for m in self.seen[mark:] if m.get("kind") == kind), None)

        if found() is None:
            self.kernel.wait_for(lambda _msg: found() is not None, timeout)
        return found() or {}

    def kinds(self) -> list[str]:
        return [m.get("kind", "") for m in self.seen]

    def text(self) -> str:
        return "".join(m.get("text", "") for m in self.seen if m.get("kind") == "delta")


def test_a_kernel_without_the_extension_closes_the_comm(tmp_path: Path, scripted_server: Any) -> None:
    """The panel learns at once that it must offer %load_ext (no hang, no traceback)."""
    kernel = kernel_harness.Kernel(tmp_path, {})
    try:
        comm_id = kernel.comm_open(TARGET, {"type": "hello"})
        closed = kernel.wait_for(lambda m: m["msg_type"] == "comm_close", timeout=30)
        assert closed["content"]["comm_id"] == comm_id
    finally:
        kernel.shutdown()


def test_prompt_streams_deltas_and_persists(start_kernel: Any, scripted_server: Any) -> None:
    answer = "The panel talks to the kernel. " * 20
    scripted_server.queue(Reply(text=answer, chunk_size=4))
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    hello = panel.wait("hello")
    assert hello["session_id"].startswith("ses") and hello["busy"] is False
    assert "problem" not in hello
    panel.wait("reset", lambda m: m["session_id"] == hello["session_id"])
    panel.send(type="prompt", text="explain the panel")
    panel.wait("status", lambda m: m["state"] == "idle" and "delta" in panel.kinds(), timeout=60)
    user = [m["part"]["text"] for m in panel.seen if m.get("kind") == "part" and m["part"].get("text")]
    assert "explain the panel" in user
    assert panel.text() + "".join(
        m["part"].get("text", "")
        for m in panel.seen
        if m.get("kind") == "part" and m["part"]["type"] == "text"
    ).replace("explain the panel", "") in (answer, answer + answer)
    sent = sum(len(json.dumps(m)) for m in panel.seen if m.get("kind") in ("delta", "part"))
    assert sent < 3 * len(answer)  # deltas, never the whole text again per chunk
    stored = kernel.execute(
        "from jupyter_agent.core.messages import TextPart\n"
        "_a = get_ipython().find_magic('agent').__self__.agent\n"
        "print(sum(len(p.text) for m in _a.runtime.store.messages(_a.session_id) for p in m.parts"
        " if isinstance(p, TextPart) and m.info.role == 'assistant'))"
    )
    assert stored.stdout.strip() == str(len(answer))


def test_notebook_edit_is_staged_through_the_panel_and_its_review_comes_back(
    start_kernel: Any, scripted_server: Any
) -> None:
    """The agent's notebook_edit asks the panel to read and to stage the edit; the user's
    Accept comes back as a review request and the tool's result says so (stage is the default
    where someone watches)."""
    args = {"action": "insert", "source": "print('from the agent')", "run": False}
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("notebook_edit", json.dumps(args))]),
        Reply(text="Staged the cell."),
    )
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    panel.send(type="prompt", text="add a cell")
    cells = [{"id": "c1", "cell_type": "code", "source": "x = 1", "outputs": [], "execution_count": 1}]
    read = panel.wait("nb_op", lambda m: m["op"] == "read", timeout=60)
    panel.send(type="nb_reply", op_id=read["op_id"], ok=True, cells=cells)
    stage = panel.wait("nb_op", lambda m: m["op"] == "stage", timeout=60)
    staged = stage["staged"]
    assert staged["action"] == "insert" and staged["after_id"] == "c1" and staged["source"] == args["source"]
    assert staged["label"] == "insert a new code cell below In [1]"
    panel.send(type="nb_reply", op_id=stage["op_id"], ok=True, cell_id="new-cell-id")
    tool = panel.wait(
        "part", lambda m: m["part"].get("tool") == "notebook_edit" and m["part"]["status"] == "completed"
    )
    assert (
        "Staged for the user's review" in tool["part"]["output"] and "new-cell-id" in tool["part"]["output"]
    )
    assert panel.wait("review", lambda m: m["pending"] == 1)
    panel.wait("status", lambda m: m["state"] == "idle" and "Staged the cell" in panel.text(), timeout=60)
    after = {
        "id": "new-cell-id",
        "cell_type": "code",
        "source": args["source"],
        "metadata": {},
        "outputs": [],
    }
    panel.send(
        type="review",
        staged_id=staged["id"],
        decision="accept",
        cell_id="new-cell-id",
        index=1,
        prev_id="c1",
        after=after,
    )
    accepted = panel.wait(
        "part",
        lambda m: m["part"].get("tool") == "notebook_edit" and "accepted" in m["part"].get("output", ""),
    )
    assert "The user accepted the staged edit" in accepted["part"]["output"]
    assert panel.wait("review", lambda m: m["pending"] == 0)


def test_a_failed_notebook_operation_is_a_tool_error(start_kernel: Any, scripted_server: Any) -> None:
    args = {"action": "delete", "cell_id": "c1"}
    scripted_server.queue(Reply(tool_calls=[ToolCall("notebook_edit", json.dumps(args))]), Reply(text="ok"))
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    panel.send(type="prompt", text="delete it")
    read = panel.wait("nb_op", lambda m: m["op"] == "read", timeout=60)
    cells = [{"id": "c1", "cell_type": "code", "source": "x", "outputs": [], "execution_count": None}]
    panel.send(type="nb_reply", op_id=read["op_id"], ok=True, cells=cells)
    stage = panel.wait("nb_op", lambda m: m["op"] == "stage", timeout=60)
    panel.send(type="nb_reply", op_id=stage["op_id"], ok=False, error="No cell with id c1")
    tool = panel.wait(
        "part", lambda m: m["part"].get("tool") == "notebook_edit" and m["part"]["status"] == "error"
    )
    assert "No cell with id c1" in tool["part"]["error"]


def test_completions_sessions_and_rename(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "sales.csv").write_text("a,b\n1,2\n")
    kernel = start_kernel(frontend=True)
    kernel.execute("sales_df = [1, 2, 3]\nsalary = 10")
    panel = Panel(kernel)
    hello = panel.wait("hello")
    panel.send(type="complete", request_id="1", query="sal")
    items = panel.wait("completions", lambda m: m["request_id"] == "1")["items"]
    assert [i["label"] for i in items] == ["salary", "sales_df"]
    assert items[1]["detail"] == "list"
    panel.send(type="complete", request_id="2", query="file:data/s")
    items = panel.wait("completions", lambda m: m["request_id"] == "2")["items"]
    assert [i["label"] for i in items] == ["file:data/sales.csv"]

    scripted_server.queue(Reply(text="noted"))  # an empty session would be reused by "new"
    panel.send(type="prompt", text="remember the sales")
    panel.wait("status", lambda m: m["state"] == "idle" and "noted" in panel.text(), timeout=60)
    panel.send(type="new_session")
    second = panel.wait("sessions", lambda m: m["session_id"] != hello["session_id"])
    assert {s["id"] for s in second["sessions"]} >= {hello["session_id"], second["session_id"]}
    panel.send(type="rename_session", session_id=second["session_id"], title="Sales questions")
    renamed = panel.wait("sessions", lambda m: any(s["title"] == "Sales questions" for s in m["sessions"]))
    assert renamed["session_id"] == second["session_id"]
    panel.send(type="switch_session", session_id=hello["session_id"])
    panel.wait("reset", lambda m: m["session_id"] == hello["session_id"])
    # the magics share the panel's current session
    assert (
        hello["session_id"]
        in kernel.execute("print(get_ipython().find_magic('agent').__self__.agent.session_id)").stdout
    )


def test_history_is_restored_after_a_kernel_restart(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="Remember the number 4711."))
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    panel.send(type="prompt", text="what number?")
    panel.wait("status", lambda m: m["state"] == "idle" and "4711" in panel.text(), timeout=60)
    kernel.restart()
    assert kernel.execute("%load_ext jupyter_agent").status == "ok"
    reopened = Panel(kernel)
    reopened.wait("hello")
    reopened.send(type="ready", view="v1")
    replay = reopened.wait("replay", lambda m: m["view"] == "v1")
    texts = [m["part"].get("text", "") for m in replay["messages"] if m.get("kind") == "part"]
    assert "what number?" in texts and "Remember the number 4711." in texts


def test_stop_and_compact_from_the_panel(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="slow " * 400, chunk_size=2, delay_per_chunk=0.02))
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    panel.send(type="prompt", text="go slowly")
    panel.wait("delta", timeout=60)
    stopped_at = time.monotonic()
    panel.send(type="stop")
    panel.wait("status", lambda m: m["state"] == "idle", timeout=20)
    assert time.monotonic() - stopped_at < 10  # the answer would stream for 20 s more
    streamed = panel.text()
    assert 0 < len(streamed) < len("slow " * 400)

    scripted_server.queue(Reply(text="Summary: the user asked to go slowly."))
    before = len(panel.seen)
    panel.send(type="compact")
    panel.wait("compacted", timeout=60)
    gauge = [m for m in panel.seen[before:] if m.get("kind") == "gauge"]
    assert gauge, "the gauge is updated after compaction"


def test_a_cell_run_streams_into_the_panel_and_shows_busy(start_kernel: Any, scripted_server: Any) -> None:
    """`%agent` in a cell and the panel share the session: the panel shows the run as it goes."""
    scripted_server.queue(Reply(text="Answered from a cell. " * 10, chunk_size=4, delay_per_chunk=0.01))
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    assert kernel.execute("%agent --new a question from a cell").status == "ok"
    panel.wait("status", lambda m: m["state"] == "busy", timeout=30)
    panel.wait(
        "status", lambda m: m["state"] == "idle" and "Answered from a cell." in panel.text(), timeout=60
    )
    resets = [m["session_id"] for m in panel.seen if m.get("kind") == "reset"]
    assert len(resets) == 2  # followed the cell into its new session


def test_a_panel_that_reopens_gets_the_pending_approval_and_stop_ends_idle(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """A reloaded page (a new comm) must still be able to approve, and its Stop must end in idle."""
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo hi"}))]))
    kernel = start_kernel(frontend=True)
    first = Panel(kernel)
    first.wait("hello")
    first.send(type="prompt", text="run it")
    asked = first.wait("permission", timeout=60)["request"]
    kernel.comm_close(first.comm_id)
    again = Panel(kernel)  # the page was reloaded
    again.wait("hello")
    replayed = again.wait("permission", timeout=30)["request"]
    assert replayed["id"] == asked["id"]
    again.wait("status", lambda m: m["state"] == "busy", timeout=10)
    stopped_at = time.monotonic()
    again.send(type="stop")
    again.wait("status", lambda m: m["state"] == "idle", timeout=20)
    assert time.monotonic() - stopped_at < 10


def test_a_reloaded_panel_takes_over_the_runs_notebook_edits(start_kernel: Any, scripted_server: Any) -> None:
    """The page reloads while the agent works: its next notebook operation asks the new panel."""
    read = ToolCall("notebook_read", json.dumps({}))
    scripted_server.queue(
        Reply(tool_calls=[read]),
        Reply(tool_calls=[ToolCall("notebook_read", json.dumps({"offset": 0}))]),
        Reply(text="Read it."),
    )
    kernel = start_kernel(frontend=True)
    first = Panel(kernel)
    first.wait("hello")
    first.send(type="prompt", text="read the notebook")
    first.wait("nb_op", lambda m: m["op"] == "read", timeout=60)
    kernel.comm_close(first.comm_id)  # the page reloads before it answers
    again = Panel(kernel)
    again.wait("hello")
    op = again.wait("nb_op", lambda m: m["op"] == "read", timeout=60)
    cells = [{"id": "c1", "cell_type": "code", "source": "x = 1", "outputs": [], "execution_count": 1}]
    again.send(type="nb_reply", op_id=op["op_id"], ok=True, cells=cells)
    again.wait("status", lambda m: m["state"] == "idle" and "Read it." in again.text(), timeout=60)
    tools = [m["part"] for m in again.seen if m.get("kind") == "part" and m["part"].get("tool")]
    ended = [t["status"] for t in tools if t["status"] in ("completed", "error")]
    assert ended[-2:] == ["error", "completed"]  # the first panel closed before it answered


def test_a_long_session_opens_on_its_newest_page(start_kernel: Any, tmp_path: Path) -> None:
    """A 120-message session shows its newest 50 and "Show earlier messages"; each request
    brings the page before, oldest first, until nothing is left (issue 19: older history
    loads on demand)."""
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    sid = panel.wait("hello")["session_id"]
    assert panel.wait("older").get("before") is None  # the greeting is over: a new session has no pages
    store = SqliteStore.for_directory(tmp_path)
    ids = [f"msg_{n:04d}" for n in range(120)]
    for n, mid in enumerate(ids):
        store.update_message(UserMessage(id=mid, session_id=sid))
        store.update_part(TextPart(id=f"prt_{n:04d}", session_id=sid, message_id=mid, text=f"line {n}"))
    store.close()

    def shown(since: int) -> list[str]:
        return [m["message"]["id"] for m in panel.seen[since:] if m.get("kind") == "message"]

    mark = len(panel.seen)
    panel.send(type="switch_session", session_id=sid)
    older = panel.wait_after(mark, "older")
    assert shown(mark) == ids[70:] and older["before"] == "msg_0070"
    pages = []
    while older.get("before") is not None:
        mark = len(panel.seen)
        panel.send(type="older", session_id=sid, before=older["before"])
        older = panel.wait_after(mark, "older")
        pages.append(shown(mark))
    assert pages == [ids[20:70], ids[:20]]
    panel.send(type="older", session_id="ses_elsewhere", before="msg_0010")  # crossed a switch: dropped
    assert kernel.execute("1").status == "ok"
    assert not any(m.get("kind") == "older" and m["session_id"] == "ses_elsewhere" for m in panel.seen)
