"""The catch-up state for late views: merged, ordered, bounded."""

from __future__ import annotations

from jupyter_agent.ui.backlog import Backlog
from jupyter_agent.ui.widget_protocol import (
    DeltaMsg,
    GaugeMsg,
    MessageMsg,
    MessageView,
    NoticeMsg,
    OlderMsg,
    PartMsg,
    PermissionDoneMsg,
    PermissionMsg,
    PermissionView,
    RemovedMsg,
    ReplayMsg,
    StatusMsg,
    TextView,
    ToolView,
    UIMessageAdapter,
    to_wire,
)


def text_part(pid: str, text: str = "", message_id: str = "msg_1") -> PartMsg:
    return PartMsg(part=TextView(id=pid, message_id=message_id, text=text))


def test_deltas_merge_into_their_part_and_snapshots_replace_in_place() -> None:
    log = Backlog()
    log.record(MessageMsg(message=MessageView(id="msg_1", role="assistant", agent="build")))
    log.record(text_part("a"))
    for chunk in ["Hel", "lo"]:
        log.record(DeltaMsg(part_id="a", text=chunk))
    tool = ToolView(id="t", message_id="msg_1", tool="bash", status="running", input="ls")
    log.record(PartMsg(part=tool))
    log.record(PartMsg(part=tool.model_copy(update={"status": "completed"})))
    log.record(ReplayMsg(view="v", messages=[text_part("x")]))  # one view's catch-up, not state
    out = log.replay()
    assert [m.kind for m in out] == ["message", "part", "part"]
    assert out[1] == text_part("a", "Hello")
    assert isinstance(out[2], PartMsg) and isinstance(out[2].part, ToolView)
    assert out[2].part.status == "completed"


def test_singletons_keep_the_latest_and_notices_accumulate() -> None:
    log = Backlog()
    log.record(StatusMsg(state="busy"))
    log.record(GaugeMsg(tokens=1, text="1 tokens", level="ok"))
    log.record(NoticeMsg(text="one"))
    log.record(NoticeMsg(text="two"))
    log.record(GaugeMsg(tokens=2, percent=95, text="2 tokens · 95% used", level="high"))
    log.record(StatusMsg(state="idle"))
    out = log.replay()
    assert [m.kind for m in out] == ["status", "gauge", "notice", "notice"]
    assert out[0] == StatusMsg(state="idle") and out[1].tokens == 2  # type: ignore[union-attr]


def test_removed_drops_a_part_or_a_whole_message() -> None:
    log = Backlog()
    log.record(MessageMsg(message=MessageView(id="msg_1", role="assistant", agent="build")))
    log.record(text_part("a"))
    log.record(text_part("b"))
    log.record(text_part("c", message_id="msg_2"))
    log.record(RemovedMsg(message_id="msg_1", part_id="a"))
    assert [m.part.id for m in log.replay() if isinstance(m, PartMsg)] == ["b", "c"]
    log.record(RemovedMsg(message_id="msg_1"))
    assert [m.kind for m in log.replay()] == ["part"]
    assert log.size > 0


def test_permissions_keep_their_answer() -> None:
    log = Backlog()
    log.record(PermissionMsg(request=PermissionView(id="per_1", permission="bash")))
    log.record(PermissionDoneMsg(request_id="per_1", reply="once"))
    assert [m.kind for m in log.replay()] == ["permission", "permission_done"]


def test_bounded_by_entries_and_size_with_a_note() -> None:
    log = Backlog(max_entries=3)
    log.record(StatusMsg(state="busy"))
    for i in range(5):
        log.record(NoticeMsg(text=f"n{i}"))
    out = log.replay()
    assert len(log) == 3
    assert out[0] == NoticeMsg(text="(3 earlier items are not shown here.)")
    assert [m.kind for m in out[1:]] == ["status", "notice", "notice"]
    small = Backlog(max_chars=2_000)
    small.record(text_part("a"))
    small.record(text_part("b"))
    small.record(DeltaMsg(part_id="b", text="x" * 1_880))
    assert [m.part.id for m in small.replay() if isinstance(m, PartMsg)] == ["b"]


def test_the_show_earlier_control_outlives_trimming() -> None:
    """A reloaded panel still offers the session's earlier pages after a long live run."""
    log = Backlog(max_entries=3)
    log.record(OlderMsg(session_id="ses_1", before="msg_0070"))
    for i in range(10):
        log.record(NoticeMsg(text=f"n{i}"))
    assert OlderMsg(session_id="ses_1", before="msg_0070") in log.replay()
    log.record(OlderMsg(session_id="ses_1"))  # the last page came in: one control, now hidden
    assert [m for m in log.replay() if isinstance(m, OlderMsg)] == [OlderMsg(session_id="ses_1")]


def test_a_replay_carries_each_message_as_it_went_out_alone() -> None:
    """The replay is typed (a list of live messages): its wire form must stay each message's
    own wire form, ``None`` fields left out at every depth, so the view handles it the same."""
    log = Backlog()
    log.record(MessageMsg(message=MessageView(id="msg_1", role="assistant", agent="build")))
    log.record(text_part("a", "Hi"))
    log.record(DeltaMsg(part_id="a", text=" there"))
    tool = ToolView(id="t", message_id="msg_1", tool="python", status="running", input="x = 1", code="x = 1")
    log.record(PartMsg(part=tool))
    log.record(PermissionMsg(request=PermissionView(id="per_1", permission="bash")))
    log.record(GaugeMsg(tokens=5, text="5 tokens", level="ok"))
    state = log.replay()
    wire = to_wire(ReplayMsg(view="v", messages=state))
    assert wire["messages"] == [to_wire(m) for m in state]
    text = {"id": "a", "message_id": "msg_1", "type": "text", "text": "Hi there"}
    assert wire["messages"][1]["part"] == text
    assert "progress" not in wire["messages"][2]["part"] and "percent" not in wire["messages"][4]
    assert UIMessageAdapter.validate_python(wire) == ReplayMsg(view="v", messages=state)
