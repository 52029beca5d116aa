"""AgentWidget in-process: a real Bus and a real widget without a front end.

``send`` is our widget's own method; the tests record what it would put on the comm.
Browser messages enter through ipywidgets' comm entry point (``_handle_msg``).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import (
    MessageUpdated,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    SessionCreated,
)
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageWithParts,
    Session,
    TextPart,
    ToolPart,
    ToolStateRunning,
    UserMessage,
)
from jupyter_agent.ui.widget import AgentWidget

SID = "ses_1"


class Recording(AgentWidget):
    """The widget with its outgoing custom messages kept for inspection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        super().__init__(*args, **kwargs)

    def send(self, content: Any, buffers: Any = None) -> None:
        self.sent.append(json.loads(json.dumps(content)))  # must be JSON-able
        super().send(content, buffers)

    def kinds(self) -> list[str]:
        return [m["kind"] for m in self.sent]


def from_browser(widget: AgentWidget, content: dict[str, Any]) -> None:
    widget._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def text_events(bus: Bus, chunks: list[str], pid: str = "prt_a", mid: str = "msg_2") -> None:
    text = ""
    bus.publish(PartUpdated(part=TextPart(id=pid, session_id=SID, message_id=mid)))
    for chunk in chunks:
        text += chunk
        part = TextPart(id=pid, session_id=SID, message_id=mid, text=text)
        bus.publish(PartUpdated(part=part, delta=chunk))


def test_headless_streams_every_part_in_order() -> None:
    bus = Bus()
    w = Recording(bus, SID)
    assert w.sent[0] == {"kind": "status", "state": "busy", "text": ""}
    info = AssistantMessage(id="msg_2", session_id=SID, parent_id="msg_1")
    bus.publish(MessageUpdated(message=info))
    text_events(bus, ["Hel", "lo"])
    tool = ToolPart(id="prt_b", session_id=SID, message_id="msg_2", call_id="c", tool="bash",
                    state=ToolStateRunning(input={"command": "ls"}))  # fmt: skip
    bus.publish(PartUpdated(part=tool))
    w.set_gauge(45_678, 23)
    w.notice("hi")
    w.done()
    assert w.kinds() == [
        "status", "message", "part", "delta", "delta", "part", "gauge", "notice", "status",
    ]  # fmt: skip
    assert "".join(m["text"] for m in w.sent if m["kind"] == "delta") == "Hello"
    assert w.sent[6]["text"] == "45,678 tokens · 23% used"
    assert w.sent[-1]["state"] == "idle"
    bus.publish(MessageUpdated(message=info))  # done() unsubscribed
    assert len(w.sent) == 9


async def test_deltas_are_coalesced_on_the_running_loop() -> None:
    bus = Bus()
    w = Recording(bus, SID)
    text_events(bus, ["x"] * 100)
    assert w.kinds() == ["status", "part", "delta"]  # the first delta at once, the rest wait 50 ms
    await asyncio.sleep(0.12)
    assert w.kinds() == ["status", "part", "delta", "delta"]
    assert w.sent[-2]["text"] + w.sent[-1]["text"] == "x" * 100
    w.notice("after")  # a non-delta message sends pending deltas first
    text_events(bus, ["y"], pid="prt_c")
    w.notice("order")
    assert w.kinds()[-3:] == ["part", "delta", "notice"]
    w.close()


def test_other_sessions_and_earlier_messages_are_not_shown() -> None:
    bus = Bus()
    w = Recording(bus, SID, since_id="msg_5")
    text_events(bus, ["old"], mid="msg_2")
    other = TextPart(id="p", session_id="ses_other", message_id="msg_9", text="x")
    bus.publish(PartUpdated(part=other, delta="x"))
    assert w.kinds() == ["status"]
    text_events(bus, ["new"], pid="prt_n", mid="msg_6")
    assert w.kinds() == ["status", "part", "delta"]


def test_sub_agent_permission_prompts_reach_the_parent_view() -> None:
    bus = Bus()
    w = Recording(bus, SID)
    bus.publish(SessionCreated(session=Session(id="ses_child", parent_id=SID)))
    request = PermissionRequest(id="per_1", session_id="ses_child", message_id="msg_c",
                                permission="bash", patterns=["rm *"], title="rm x")  # fmt: skip
    bus.publish(PermissionAsked(request=request))
    bus.publish(PermissionReplied(session_id="ses_child", request_id="per_1", reply="reject"))
    unrelated = request.model_copy(update={"id": "per_2", "session_id": "ses_x"})
    bus.publish(PermissionAsked(request=unrelated))
    assert w.kinds() == ["status", "permission", "permission_done"]
    assert w.sent[1]["request"] == {
        "id": "per_1", "permission": "bash", "patterns": ["rm *"], "title": "rm x",
    }  # fmt: skip


def test_ready_replays_the_compact_state_once() -> None:
    bus = Bus()
    w = Recording(bus, SID)
    text_events(bus, ["a"] * 50)
    w.set_gauge(10, 1)
    w.set_gauge(20, 2)
    before = len(w.sent)
    from_browser(w, {"type": "ready", "view": "v1"})
    assert len(w.sent) == before + 1
    replay = w.sent[-1]
    assert replay["kind"] == "replay" and replay["view"] == "v1"
    kinds = [m["kind"] for m in replay["messages"]]
    assert kinds == ["status", "part", "gauge"]
    assert replay["messages"][1]["part"]["text"] == "a" * 50
    assert replay["messages"][2]["tokens"] == 20


def test_replay_shows_stored_history_regardless_of_since_id() -> None:
    w = Recording(None, SID, since_id="msg_9", busy=False)
    user = UserMessage(id="msg_1", session_id=SID)
    text = TextPart(id="prt_1", session_id=SID, message_id="msg_1", text="what is x?")
    w.replay([MessageWithParts(info=user, parts=[text])])
    assert w.kinds() == ["status", "message", "part"]
    assert w.sent[0]["state"] == "idle" and w.sent[2]["part"]["text"] == "what is x?"


def test_browser_messages_reach_the_callbacks() -> None:
    calls: list[tuple[Any, ...]] = []
    w = Recording(
        Bus(),
        SID,
        on_stop=lambda: calls.append(("stop",)),
        on_approve=lambda rid, reply: calls.append(("approve", rid, reply)),
        on_compact=lambda: calls.append(("compact",)),
    )
    assert w.can_compact is True
    from_browser(w, {"type": "stop"})
    from_browser(w, {"type": "approve", "request_id": "per_1", "reply": "always"})
    from_browser(w, {"type": "approve", "request_id": "per_1", "reply": "sure"})  # ignored
    from_browser(w, {"type": "compact"})
    from_browser(w, {"type": "unknown"})
    assert calls == [("stop",), ("approve", "per_1", "always"), ("compact",)]


def test_a_failing_callback_does_not_break_the_widget(caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> None:
        raise RuntimeError("nope")

    w = Recording(Bus(), SID, on_stop=boom)
    from_browser(w, {"type": "stop"})
    assert "widget callback failed" in caplog.text
    assert w.can_compact is False


def test_attach_switches_session_and_detach_stops_listening() -> None:
    bus = Bus()
    w = Recording(None, "")
    w.attach(bus, SID)
    assert w.session_id == SID
    text_events(bus, ["a"])
    w.detach()
    text_events(bus, ["b"], pid="prt_z")
    assert w.kinds() == ["status", "part", "delta"]


def test_a_timer_left_on_a_finished_loop_does_not_stall_later_deltas() -> None:
    bus = Bus()
    w = Recording(bus, SID)

    async def first_run() -> None:
        text_events(bus, ["a"])  # schedules a flush timer on this private loop

    asyncio.run(first_run())  # the loop closes before the timer fires

    async def second_run() -> None:
        text_events(bus, ["b"], pid="prt_b")
        await asyncio.sleep(0.12)

    asyncio.run(second_run())
    assert "".join(m["text"] for m in w.sent if m["kind"] == "delta") == "ab"


def test_the_widget_code_travels_inline_once_then_on_request() -> None:
    """Only a kernel's first widget embeds the ~430 KB module; later ones carry the loader
    and send the code only when a page asks for it."""
    from jupyter_agent.ui.widget import CODE, loader_esm

    AgentWidget._code_shipped = False
    first, second = Recording(Bus(), SID), Recording(Bus(), SID)
    assert len(first._esm) > len(CODE) and len(second._esm) < 3_000
    assert loader_esm(CODE, inline=False) == second._esm
    assert loader_esm(CODE + " ", inline=False) != second._esm  # a new build, a new page key
    from_browser(second, {"type": "code"})
    assert second.sent[-1] == {"kind": "code", "esm": CODE}
    first.close()
    second.close()
