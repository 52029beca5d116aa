"""The widget in-process: bus events become custom messages; browser messages call back."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import PartUpdated, PermissionAsked, PermissionRequest
from jupyter_agent.core.messages import TextPart
from jupyter_agent.ui.widget import STATIC, AgentWidget


class Recording(AgentWidget):
    """Keeps what would go to the browser (our own send, not a library mock)."""

    def send(self, content: Any, buffers: Any = None) -> None:
        self.__dict__.setdefault("outbox", []).append(content)


def test_events_for_this_session_reach_the_browser() -> None:
    bus = Bus()
    stops: list[bool] = []
    answers: list[tuple[str, str]] = []
    w = Recording(
        bus,
        "ses_a",
        since_id="msg_1",
        on_stop=lambda: stops.append(True),
        on_approve=lambda rid, reply: answers.append((rid, reply)),
    )
    bus.publish(PartUpdated(part=TextPart(id="prt_1", session_id="ses_a", message_id="msg_2", text="")))
    bus.publish(
        PartUpdated(part=TextPart(id="prt_1", session_id="ses_a", message_id="msg_2", text="hi"), delta="hi")
    )
    bus.publish(PartUpdated(part=TextPart(id="prt_2", session_id="ses_b", message_id="msg_2", text="other")))
    bus.publish(PartUpdated(part=TextPart(id="prt_3", session_id="ses_a", message_id="msg_0", text="old")))
    bus.publish(
        PermissionAsked(
            request=PermissionRequest(
                id="per_1", session_id="ses_a", message_id="msg_2", permission="bash", patterns=["ls"]
            )
        )
    )
    w.done()
    kinds = [m["kind"] for m in w.outbox]
    assert kinds == ["status", "part", "delta", "permission", "status"]
    w._on_front_end(w, {"type": "stop"}, None)
    w._on_front_end(w, {"type": "approve", "request_id": "per_1", "reply": "always"}, None)
    assert stops == [True] and answers == [("per_1", "always")]
    w.outbox.clear()
    w._on_front_end(w, {"type": "ready"}, None)  # a late view gets the backlog once
    assert [m["kind"] for m in w.outbox] == kinds


@pytest.mark.skipif(not Path("/usr/bin/node").exists(), reason="node not installed")
def test_widget_js_parses() -> None:
    src = (STATIC / "widget.js").read_text()
    result = subprocess.run(
        ["node", "--input-type=module", "--check"], input=src, text=True, capture_output=True
    )
    assert result.returncode == 0, result.stderr
