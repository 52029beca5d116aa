"""`jupyter console` printed a streamed answer twice: once as the cell's stdout while it
streamed, then again in the transcript's `text/plain`, which a terminal front end prints
(it cannot take back printed text on `clear_output`). Read here as jupyter console reads a
real kernel's IOPub: stream text, then each display's `text/plain`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.kernel
ANSWER = "The total is forty-two."


def _as_console_prints(kernel: Any, msg_id_of: Any) -> str:
    """What jupyter console prints for one cell: stream text and display/result text/plain
    (update_display_data is not shown by a terminal; clear_output only returns the carriage)."""
    printed = []
    for m in kernel.iopub:
        if m["parent_header"].get("msg_id") != msg_id_of:
            continue
        if m["msg_type"] == "stream":
            printed.append(m["content"]["text"])
        elif m["msg_type"] in ("display_data", "execute_result"):
            printed.append(m["content"]["data"].get("text/plain", "") + "\n")
    return "".join(printed)


def test_a_streamed_answer_is_printed_once(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": "total = 6 * 7"}))]),
        Reply(text=ANSWER),
    )
    kernel = start_kernel()  # no front end attached: as jupyter console starts it
    msg_id = kernel.kc.execute("%agent what is the total?")
    kernel.wait_for(
        lambda m: (
            m["parent_header"].get("msg_id") == msg_id
            and m["msg_type"] == "status"
            and m["content"]["execution_state"] == "idle"
        ),
        timeout=120,
    )
    printed = _as_console_prints(kernel, msg_id)
    assert printed.count(ANSWER) == 1, printed
    assert printed.count("total = 6 * 7") == 1, printed  # the tool line too
    assert "— done · " in printed and "session ses_" in printed  # the end of the run is still said
    # the saved notebook's rich views keep the whole answer (the streamed text is cleared there)
    shown = [
        m["content"]["data"]
        for m in kernel.iopub
        if m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "display_data"
    ]
    assert ANSWER in shown[-1]["text/markdown"] and ANSWER in shown[-1]["text/html"]
