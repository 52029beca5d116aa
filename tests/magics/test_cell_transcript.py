"""A finished %agent run leaves a static transcript in its cell, in place of the live widget."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_server import ErrorReply, Reply, ToolCall

pytestmark = pytest.mark.kernel
WIDGET = "application/vnd.jupyter.widget-view+json"


def _updates(kernel: Any, display_id: str) -> list[dict[str, Any]]:
    return [
        m["content"]
        for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]


def test_the_widget_is_replaced_by_the_transcript(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": "total = 6 * 7\ntotal"}))]),
        Reply(text="The **total** is 42."),
    )
    kernel = start_kernel(frontend=True)
    result = kernel.execute("%agent compute the total")
    assert result.status == "ok", result.error
    (shown,) = [o for o in result.outputs if WIDGET in o["data"]]
    assert "object at 0x" not in shown["data"]["text/plain"]  # readable while it runs
    display_id = shown["transient"]["display_id"]
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
        )
    )
    (final,) = _updates(kernel, display_id)
    data, meta = final["data"], final["metadata"]["jupyter_agent"]
    assert WIDGET not in data and set(data) == {"text/html", "text/markdown", "text/plain"}
    assert "<strong>total</strong> is 42." in data["text/html"]
    assert "[python total = 6 * 7 — completed]" in data["text/plain"]
    assert "You: compute the total" in data["text/plain"]
    assert "done · " in data["text/plain"] and "openai/test" in data["text/plain"]
    assert meta["session_id"].startswith("ses_") and meta["status"] == "done"
    assert f'data-session-id="{meta["session_id"]}"' in data["text/html"]
    # the widget's comm is closed: nothing of it is left to save as widget state
    assert any(m["msg_type"] == "comm_close" for m in kernel.iopub)


def test_headless_run_leaves_the_transcript_too(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="Plain answer."))
    kernel = start_kernel()
    result = kernel.execute("%agent --wait say it")
    assert result.status == "ok", result.error
    # no live widget (nothing could show it, and its state would bloat the file): the
    # transcript is the cell's one output
    (shown,) = [o for o in result.outputs if "text/markdown" in o.get("data", {})]
    assert "Plain answer." in shown["data"]["text/markdown"] and WIDGET not in shown["data"]
    assert shown["metadata"]["jupyter_agent"]["session_id"].startswith("ses_")
    opened = [m["content"]["target_name"] for m in kernel.iopub if m["msg_type"] == "comm_open"]
    assert "jupyter.widget" not in opened, opened
    # the next prompt in that session starts with a gauge of what is already there
    scripted_server.queue(Reply(text="Second plain answer."))
    again = kernel.execute("%agent --wait and again")
    assert again.status == "ok", again.error
    assert any("Second plain answer." in o["data"].get("text/markdown", "") for o in again.outputs)


def test_a_failed_run_says_so(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(ErrorReply(401, json.dumps({"error": {"message": "bad key"}})))
    kernel = start_kernel(frontend=True)
    result = kernel.execute("%agent hello")
    display_id = next(o for o in result.outputs if WIDGET in o["data"])["transient"]["display_id"]
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
        )
    )
    (final,) = _updates(kernel, display_id)
    assert final["metadata"]["jupyter_agent"]["status"] == "failed"
    assert final["data"]["text/plain"].splitlines()[-1].startswith("— failed · ")
    assert "Error:" in final["data"]["text/plain"]


def test_compact_leaves_the_summary_not_a_prompt(start_kernel: Any, scripted_server: Any) -> None:
    """User sees: "— history summarised here —" and the summary in the cell, not "You: %compact"."""
    scripted_server.queue(Reply(text="First answer."), Reply(text="We computed the totals so far."))
    kernel = start_kernel()
    assert kernel.execute("%agent --wait compute the totals").status == "ok"
    result = kernel.execute("%compact")
    assert result.status == "ok", result.error
    (shown,) = [o for o in result.outputs if "text/markdown" in o.get("data", {})]
    plain = shown["data"]["text/plain"]
    assert "history summarised here" in plain and "We computed the totals so far." in plain
    assert "%compact" not in plain and "You:" not in plain
