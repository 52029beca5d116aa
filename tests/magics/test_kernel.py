"""%agent in a real kernel (jupyter_client) against the scripted server.

Stop, interrupts and kernel crashes are in the fault suite, tests/faults/test_kernel_faults.py.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import Kernel
from kernel_harness import wait_widget_idle as _wait_idle
from kernel_harness import widget_traffic as _widget_traffic
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.kernel


def test_blocking_prompt_streams_and_persists(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": "total = 6 * 7\ntotal"}))]),
        Reply(text="The **total** is 42."),
    )
    kernel = start_kernel()
    result = kernel.execute("%agent --wait compute the total")
    assert result.status == "ok", result.error
    # no front end to show a live widget: the cell gets the transcript, and no widget state
    texts = "".join(o["data"].get("text/markdown", "") for o in result.outputs)
    assert "The **total** is 42." in texts
    opened = [m["content"] for m in kernel.iopub if m["msg_type"] == "comm_open"]
    assert all(c["target_name"] == "jupyter_agent" for c in opened), opened  # the panel's, no widget
    assert kernel.execute("print(total)").stdout.strip() == "42"  # the agent's variable is the user's
    tool_result = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert "Out: 42" in tool_result["content"]
    db = tmp_path / ".jupyter-agent" / "sessions.db"
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM message").fetchone()[0] == 3


def test_no_model_prints_guidance(tmp_path: Path, scripted_server: Any) -> None:
    kernel = Kernel(tmp_path, {"JUPYTER_AGENT_API_KEY": "x"})
    try:
        kernel.execute("%load_ext jupyter_agent")
        # headless (a runner): the guidance is printed and the cell fails, so the run stops here
        result = kernel.execute("%agent hello")
        assert result.status == "error" and "JUPYTER_AGENT_MODEL" in result.stdout
        assert result.error is not None and result.error["traceback"] == [
            "AgentRunError: No model is configured for jupyter-agent."
        ]
        usage = kernel.execute("%agent --bogus hi")
        assert usage.error is not None and usage.error["evalue"] == "Unknown option --bogus."
        assert "--model M" in usage.stdout
    finally:
        kernel.shutdown()


def test_background_traffic_is_linear_in_text(start_kernel: Any, scripted_server: Any) -> None:
    answer = "".join(f"word{i} " for i in range(15_000))[:100_000]
    scripted_server.queue(Reply(text=answer, chunk_size=50, delay_per_chunk=0.003))  # ~6 s of streaming
    kernel = start_kernel(frontend=True)
    assert kernel.execute("%agent write a lot").status == "ok"
    # the cell returned while the answer was still streaming: it never waits for the model
    early = "".join(m.get("text", "") for m in _widget_traffic(kernel) if m.get("kind") == "delta")
    assert len(early) < len(answer)
    _wait_idle(kernel)
    traffic = _widget_traffic(kernel)
    streamed = "".join(m.get("text", "") for m in traffic if m.get("kind") == "delta")
    assert streamed == answer
    sent = sum(len(json.dumps(m)) for m in traffic)
    assert sent <= 1.5 * len(answer), sent


def test_approval_over_the_comm_unblocks(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo approved-run"}))]),
        Reply(text="ran it"),
    )
    kernel = start_kernel(frontend=True)
    kernel.execute("%agent run the command")
    asked = kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("kind") == "permission"
        )
    )
    request = asked["content"]["data"]["content"]["request"]
    assert request["permission"] == "bash"
    kernel.comm_send(
        asked["content"]["comm_id"], {"type": "approve", "request_id": request["id"], "reply": "once"}
    )
    _wait_idle(kernel)
    tool = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert "approved-run" in tool["content"]


def test_matplotlib_png_reaches_the_next_request(start_kernel: Any, scripted_server: Any) -> None:
    code = "import matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nplt.plot([1, 2, 3])"
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]), Reply(text="plotted")
    )
    kernel = start_kernel(model="openai/gpt-4o")
    assert kernel.execute("%agent --wait plot it").status == "ok"
    messages = scripted_server.requests[1]["body"]["messages"]
    tool_index = next(i for i, m in enumerate(messages) if m["role"] == "tool")
    attached = messages[tool_index + 1]
    assert (
        attached["role"] == "user" and attached["content"][0]["text"] == "Attached image(s) from tool result:"
    )
    assert attached["content"][1]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")


def test_two_cells_queue_on_one_session(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(text="first answer " * 30, chunk_size=4, delay_per_chunk=0.01),
        Reply(text="second answer"),
    )
    kernel = start_kernel(frontend=True)
    kernel.execute("%agent first question")
    kernel.execute("%agent second question")
    deadline = time.monotonic() + 60
    while len(scripted_server.requests) < 2 and time.monotonic() < deadline:
        kernel.drain(0.5)
    kernel.drain(2)
    assert len(scripted_server.requests) == 2
    second = scripted_server.requests[1]["body"]["messages"]
    users = [m["content"] for m in second if m["role"] == "user"]
    assert users[0] == "first question" and "second question" in users[-1]
    assert any(m["role"] == "assistant" and "first answer" in (m["content"] or "") for m in second)


def test_session_subcommands(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "out.txt", "content": "v1"}))]),
        Reply(text="wrote it"),
    )
    scripted_server.title_reply = Reply(text="Writing out.txt")
    kernel = start_kernel()
    assert kernel.execute("%agent --wait write the file").status == "ok"
    listing = kernel.execute("%agent sessions")
    html = "".join(o["data"].get("text/html", "") for o in listing.outputs)
    assert "Writing out.txt" in html
    assert "Renamed" in kernel.execute("%agent rename Better title").stdout
    assert "Reverted" in kernel.execute("%agent revert").stdout
    assert not (tmp_path / "out.txt").exists()
    assert "Unreverted" in kernel.execute("%agent unrevert").stdout
    assert (tmp_path / "out.txt").read_text() == "v1"
    forked = kernel.execute("%agent fork").stdout
    assert "Better title (fork #1)" in forked
    exported = kernel.execute("%agent export --format md").stdout
    path = Path(exported.split("Wrote ")[1].strip())
    assert "wrote it" in path.read_text()
    fork_id = forked.split("Forked into ")[1].split(":")[0]
    assert "Deleted" in kernel.execute(f"%agent delete {fork_id}").stdout
    bad = kernel.execute("%agent switch ses_nope")  # headless (a runner): a mistyped id stops the run
    assert bad.status == "error" and bad.error is not None and bad.error["ename"] == "AgentRunError"
    assert "No session 'ses_nope'" in bad.error["evalue"]
