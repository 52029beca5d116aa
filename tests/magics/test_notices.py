"""The unknown-context-window notice reaches every session that uses the model, once, as a
sentence (it used to reach only the first run of the process, as raw JSON)."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_harness import custom_messages
from scripted_server import Reply

pytestmark = pytest.mark.kernel
NOTICE = "does not know the context window of openai/test"
WIDGET = "application/vnd.jupyter.widget-view+json"


def _transcript(kernel: Any, line: str) -> str:
    result = kernel.execute(line)
    assert result.status == "ok", result.error
    (shown,) = [o for o in result.outputs if "text/plain" in o.get("data", {}) and o.get("metadata")]
    return str(shown["data"]["text/plain"])


def test_every_session_is_told_once(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    kernel = start_kernel()
    first = _transcript(kernel, "%agent --wait first")
    again = _transcript(kernel, "%agent --wait same session")
    other = _transcript(kernel, "%agent --wait --new another session")
    assert NOTICE in first and NOTICE not in again and NOTICE in other
    (line,) = [x for x in first.splitlines() if NOTICE in x]
    assert "{" not in line and line.rstrip().endswith("."), line
    assert "32,000 tokens" in line and "jupyter-agent.json" in line


def test_a_live_view_shows_the_notice_and_the_saved_transcript_leaves_it_out(
    start_kernel: Any, scripted_server: Any
) -> None:
    """The notice was saved into the notebook forever; it belongs to the live view (and to the
    panel's view of the session), the transcript keeps what the run produced."""
    scripted_server.queue(Reply(text="live answer"))
    kernel = start_kernel(frontend=True)
    result = kernel.execute("%agent hello")
    assert result.status == "ok", result.error
    display_id = next(o for o in result.outputs if WIDGET in o["data"])["transient"]["display_id"]
    final = kernel.wait_for(
        lambda m: (
            m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
        )
    )
    live = [c.get("text", "") for _, c in custom_messages(kernel.iopub) if c.get("kind") == "notice"]
    assert any(NOTICE in n for n in live), live
    data = final["content"]["data"]
    assert "live answer" in data["text/plain"]
    assert not [text for text in data.values() if NOTICE in text], data
