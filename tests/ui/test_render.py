"""Events → UI messages: what is sent as a snapshot, what as a delta, and how big it gets."""

from __future__ import annotations

import json
from typing import get_args

from jupyter_agent.core.events import (
    MessageRemoved,
    MessageUpdated,
    PartRemoved,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    SessionCompacted,
    SessionErrored,
    SessionUpdated,
)
from jupyter_agent.core.messages import (
    AnyPart,
    AssistantMessage,
    Attachment,
    CompactionPart,
    FilePart,
    MessageError,
    MessageWithParts,
    ReasoningPart,
    RetryError,
    RetryPart,
    Session,
    SessionTime,
    StepStartPart,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolState,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
    ToolTimeCompleted,
    ToolTimeError,
    UserMessage,
)
from jupyter_agent.ui.render import (
    MAX_STARTED,
    OUTPUT_CAP,
    DeltaBuffer,
    Renderer,
    cap_output,
    gauge_message,
    input_summary,
    part_view,
)
from jupyter_agent.ui.widget_protocol import (
    AnyPartView,
    CompactedMsg,
    DeltaMsg,
    MessageMsg,
    PartMsg,
    PermissionDoneMsg,
    PermissionMsg,
    RemovedMsg,
    StatusMsg,
    UIMessage,
    UIMessageAdapter,
    to_wire,
)

IDS = {"session_id": "ses_1", "message_id": "msg_2"}


def tool(state: ToolState, name: str = "bash", pid: str = "prt_t") -> ToolPart:
    return ToolPart(id=pid, call_id="call_1", tool=name, state=state, **IDS)


def stream_text(renderer: Renderer, chunks: list[str], pid: str = "prt_x") -> list[UIMessage]:
    out = renderer.render(PartUpdated(part=TextPart(id=pid, **IDS)))
    text = ""
    for chunk in chunks:
        text += chunk
        out += renderer.render(PartUpdated(part=TextPart(id=pid, text=text, **IDS), delta=chunk))
    return out


# ---------------------------------------------------------------- renderer


def test_first_event_is_a_snapshot_then_only_deltas() -> None:
    out = stream_text(Renderer(), ["Hel", "lo"])
    assert isinstance(out[0], PartMsg) and out[0].part.text == ""
    assert out[1:] == [DeltaMsg(part_id="prt_x", text="Hel"), DeltaMsg(part_id="prt_x", text="lo")]


def test_first_event_with_text_carries_it_and_final_write_sends_nothing() -> None:
    r = Renderer()
    first = r.render(PartUpdated(part=TextPart(id="p", text="Hi", **IDS), delta="Hi"))
    assert isinstance(first[0], PartMsg) and first[0].part.text == "Hi"
    assert r.render(PartUpdated(part=TextPart(id="p", text="Hi", **IDS))) == []


def test_text_that_no_longer_matches_is_resent_whole() -> None:
    r = Renderer()
    stream_text(r, ["abc"], pid="p")
    # a delta got lost on the way (e.g. an attempt restarted): the lengths disagree
    out = r.render(PartUpdated(part=TextPart(id="p", text="abc?!", **IDS), delta="!"))
    assert isinstance(out[0], PartMsg) and out[0].part.text == "abc?!"


def test_reasoning_streams_like_text_and_synthetic_text_is_hidden() -> None:
    r = Renderer()
    out = r.render(PartUpdated(part=ReasoningPart(id="r", text="h", **IDS), delta="h"))
    assert isinstance(out[0], PartMsg) and out[0].part.type == "reasoning"
    assert isinstance(
        r.render(PartUpdated(part=ReasoningPart(id="r", text="hm", **IDS), delta="m"))[0], DeltaMsg
    )
    hidden = TextPart(id="s", text="Continue if you have next steps", synthetic=True, **IDS)
    assert r.render(PartUpdated(part=hidden)) == []
    assert r.render(PartUpdated(part=StepStartPart(id="st", **IDS))) == []


def test_tool_part_is_resent_only_when_its_view_changes() -> None:
    r = Renderer()
    pending = tool(ToolStatePending(input={"command": "ls -la"}))
    first = r.render(PartUpdated(part=pending))
    assert isinstance(first[0], PartMsg)
    assert first[0].part.status == "pending" and first[0].part.input == "ls -la"
    assert r.render(PartUpdated(part=pending)) == []
    running = tool(ToolStateRunning(input={"command": "ls -la"}, title="List"))
    assert r.render(PartUpdated(part=running))[0].part.status == "running"  # type: ignore[union-attr]
    live = tool(ToolStateRunning(input={"command": "ls"}, title="List", metadata={"output": "a\n"}))
    assert r.render(PartUpdated(part=live))[0].part.output == "a\n"  # type: ignore[union-attr]
    done = tool(
        ToolStateCompleted(
            input={"command": "ls"},
            output="a\nb\n",
            title="List",
            time=ToolTimeCompleted(start=1),
            attachments=[Attachment(mime="image/png", url="data:image/png;base64,AAA")],
        )
    )
    view = r.render(PartUpdated(part=done))[0].part  # type: ignore[union-attr]
    assert (view.status, view.output, view.title) == ("completed", "a\nb\n", "List")
    assert view.attachments and view.attachments[0].url == "data:image/png;base64,AAA"
    failed = tool(
        ToolStateError(error="boom", metadata={"interrupted": True}, time=ToolTimeError(start=1)),
        pid="prt_e",
    )
    err = r.render(PartUpdated(part=failed))[0].part  # type: ignore[union-attr]
    assert (err.status, err.error, err.interrupted) == ("error", "boom", True)


def test_input_summary_picks_the_telling_argument() -> None:
    assert input_summary({"command": "git status", "description": "x"}) == "git status"
    assert input_summary({"filePath": "/a/b.py", "content": "…"}) == "/a/b.py"
    code = "\n\nimport pandas as pd\ndf = pd.read_csv('x')"
    assert input_summary({"code": code}) == "import pandas as pd"
    long = input_summary({"command": "echo " + "x" * 500})
    assert len(long) == 120 and long.endswith("…")
    assert input_summary({"a": 1}) == '{"a": 1}'
    assert input_summary({}) == ""


def test_output_is_capped_with_a_note() -> None:
    text = "x" * (OUTPUT_CAP + 1234)
    capped = cap_output(text)
    assert capped.startswith("x" * OUTPUT_CAP) and capped.endswith("… (1,234 more chars)")
    assert cap_output("short") == "short"
    done = tool(ToolStateCompleted(output=text, time=ToolTimeCompleted(start=1)))
    view = Renderer().render(PartUpdated(part=done))[0].part  # type: ignore[union-attr]
    assert len(view.output or "") < OUTPUT_CAP + 40


def test_gauge_text_and_levels() -> None:
    g = gauge_message(45_678, 23)
    assert (g.text, g.level, g.tokens, g.percent) == ("45,678 tokens · 23% used", "ok", 45_678, 23)
    assert gauge_message(1, 69).level == "ok"
    assert gauge_message(1, 70).level == "warn"
    assert gauge_message(1, 89).level == "warn"
    assert gauge_message(1, 90).level == "high"
    no_limit = gauge_message(1_200, None)
    assert (no_limit.text, no_limit.level) == ("1,200 tokens", "ok")


def test_other_events() -> None:
    r = Renderer()
    err = MessageError(name="rate_limit", message="slow down")
    info = AssistantMessage(id="msg_2", session_id="ses_1", parent_id="msg_1", error=err)
    msg = r.render(MessageUpdated(message=info))[0]
    assert isinstance(msg, MessageMsg) and msg.message.error is not None
    assert (msg.message.role, msg.message.error.name) == ("assistant", "rate_limit")
    user = r.render(MessageUpdated(message=UserMessage(id="msg_1", session_id="ses_1")))[0]
    assert to_wire(user) == {
        "kind": "message",
        "message": {"id": "msg_1", "role": "user", "agent": "build"},
    }
    removed = r.render(PartRemoved(session_id="ses_1", message_id="msg_2", part_id="p"))
    assert removed == [RemovedMsg(message_id="msg_2", part_id="p")]
    gone = r.render(MessageRemoved(session_id="ses_1", message_id="msg_2"))
    assert gone == [RemovedMsg(message_id="msg_2")]
    request = PermissionRequest(
        id="per_1", session_id="ses_1", message_id="msg_2", permission="bash",
        patterns=["git *"], title="git push",
    )  # fmt: skip
    asked = r.render(PermissionAsked(request=request))[0]
    assert isinstance(asked, PermissionMsg) and asked.request.patterns == ["git *"]
    done = r.render(PermissionReplied(session_id="ses_1", request_id="per_1", reply="always"))
    assert done == [PermissionDoneMsg(request_id="per_1", reply="always")]
    assert r.render(SessionCompacted(session_id="ses_1")) == [CompactedMsg()]
    assert r.render(SessionErrored(session_id="ses_1", error=err)) == [
        StatusMsg(state="error", text="slow down")
    ]


def test_compaction_and_retry_parts_and_compacting_status() -> None:
    r = Renderer()
    comp = r.render(PartUpdated(part=CompactionPart(id="c", auto=True, **IDS)))[0]
    assert isinstance(comp, PartMsg) and comp.part.auto is True
    retry = RetryPart(id="rt", attempt=2, error=RetryError(message="429"), next=5, **IDS)
    view = r.render(PartUpdated(part=retry))[0].part  # type: ignore[union-attr]
    assert (view.attempt, view.error, view.next) == (2, "429", 5)
    session = Session(id="ses_1", time=SessionTime(compacting=1))
    assert r.render(SessionUpdated(session=session))[0].text == "Summarising the history…"  # type: ignore[union-attr]
    assert r.render(SessionUpdated(session=session)) == []
    idle = Session(id="ses_1")
    assert r.render(SessionUpdated(session=idle))[0].text == "Working…"  # type: ignore[union-attr]


def test_history_snapshots_carry_whole_text() -> None:
    user = UserMessage(id="msg_1", session_id="ses_1")
    entry = MessageWithParts(
        info=user,
        parts=[TextPart(id="p", text="hello there", session_id="ses_1", message_id="msg_1")],
    )
    out = Renderer().history([entry])
    assert isinstance(out[0], MessageMsg) and isinstance(out[1], PartMsg)
    assert out[1].part.text == "hello there"


def test_wire_format_round_trips_through_the_adapter() -> None:
    out = stream_text(Renderer(), ["a"])
    for message in out:
        assert UIMessageAdapter.validate_python(to_wire(message)) == message
    assert to_wire(out[1]) == {"kind": "delta", "part_id": "prt_x", "field": "text", "text": "a"}


# ---------------------------------------------------------------- delta buffer


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_first_delta_goes_at_once_then_deltas_within_the_window_become_one_message() -> None:
    sent: list[UIMessage] = []
    clock = Clock()
    buffer = DeltaBuffer(sent.append, clock)
    assert buffer.push(DeltaMsg(part_id="p", text="first")) is False
    assert sent == [DeltaMsg(part_id="p", text="first")]  # the answer starts without a wait
    for i in range(100):
        clock.now = i * 0.0004
        assert buffer.push(DeltaMsg(part_id="p", text=str(i % 10)))
    assert len(sent) == 1
    buffer.flush()
    assert sent[1:] == [DeltaMsg(part_id="p", text="0123456789" * 10)]
    assert not buffer.pending


def test_first_deltas_stay_in_order_and_the_set_of_started_parts_is_bounded() -> None:
    sent: list[UIMessage] = []
    buffer = DeltaBuffer(sent.append, Clock())
    buffer.push(DeltaMsg(part_id="a", text="1"))
    buffer.push(DeltaMsg(part_id="a", text="2"))
    buffer.push(DeltaMsg(part_id="b", text="x"))  # b's first delta sends a's pending text first
    assert sent == [
        DeltaMsg(part_id="a", text="1"),
        DeltaMsg(part_id="a", text="2"),
        DeltaMsg(part_id="b", text="x"),
    ]
    for i in range(MAX_STARTED + 10):
        buffer.push(DeltaMsg(part_id=f"p{i}", text="."))
    assert len(buffer._started) <= MAX_STARTED


def test_a_delta_after_the_window_flushes_without_a_timer() -> None:
    sent: list[UIMessage] = []
    clock = Clock()
    buffer = DeltaBuffer(sent.append, clock)
    buffer.push(DeltaMsg(part_id="p", text="0"))
    buffer.push(DeltaMsg(part_id="p", text="a"))
    clock.now = 0.06
    assert buffer.push(DeltaMsg(part_id="p", text="b")) is False
    assert sent == [DeltaMsg(part_id="p", text="0"), DeltaMsg(part_id="p", text="ab")]


def test_other_messages_flush_pending_deltas_first() -> None:
    sent: list[UIMessage] = []
    buffer = DeltaBuffer(sent.append, Clock())
    buffer.push(DeltaMsg(part_id="a", text="0"))
    buffer.push(DeltaMsg(part_id="b", text="w"))
    del sent[:]
    buffer.push(DeltaMsg(part_id="a", text="1"))
    buffer.push(DeltaMsg(part_id="b", text="x"))
    buffer.push(DeltaMsg(part_id="a", text="2"))
    buffer.push(CompactedMsg())
    assert sent == [
        DeltaMsg(part_id="a", text="12"),
        DeltaMsg(part_id="b", text="x"),
        CompactedMsg(),
    ]


def test_a_gauge_waits_for_the_open_window_and_costs_no_message_of_its_own() -> None:
    sent: list[UIMessage] = []
    clock = Clock()
    buffer = DeltaBuffer(sent.append, clock)
    buffer.push(DeltaMsg(part_id="a", text="0"))
    buffer.push(DeltaMsg(part_id="a", text="1"))
    assert buffer.push(gauge_message(10, 1)) is True  # deltas are pending: it rides their flush
    assert buffer.push(gauge_message(12, 1)) is True  # only the newest is sent
    assert sent == [DeltaMsg(part_id="a", text="0")]
    buffer.flush()
    assert sent[1:] == [DeltaMsg(part_id="a", text="1"), gauge_message(12, 1)]
    assert buffer.push(gauge_message(13, 1)) is False  # nothing pending: it goes at once
    assert sent[-1] == gauge_message(13, 1) and not buffer.pending


def test_streaming_traffic_is_linear_in_the_text() -> None:
    """100 KB as 2,000 deltas over ~2 s of streaming: bytes on the wire ≤ 1.5 × text."""
    sizes: list[int] = []
    clock = Clock()
    buffer = DeltaBuffer(lambda m: sizes.append(len(json.dumps(to_wire(m)))), clock)
    renderer = Renderer()
    text = ""
    chunks = [f'w{i:04d} "q"\n' * 5 for i in range(2_000)]  # 50 chars (with escapes) → 100 KB
    for message in renderer.render(PartUpdated(part=TextPart(id="prt_" + "x" * 26, **IDS))):
        buffer.push(message)
    for i, chunk in enumerate(chunks):
        clock.now = i * 0.001
        text += chunk
        part = TextPart(id="prt_" + "x" * 26, text=text, **IDS)
        for message in renderer.render(PartUpdated(part=part, delta=chunk)):
            buffer.push(message)
    buffer.flush()
    assert len(text) == 100_000
    assert sum(sizes) <= 1.5 * len(text), sum(sizes)
    assert len(sizes) < 60  # ~one message per 50 ms, not one per token


def test_code_tools_carry_their_whole_code_for_highlighting() -> None:
    code = "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.describe()"
    view = part_view(tool(ToolStateRunning(input={"code": code}), name="python"))
    assert view is not None and view.code == code and view.lang == "python"
    assert view.input == "import pandas as pd"
    bash = part_view(tool(ToolStatePending(input={"command": "ls -la"})))
    assert bash is not None and (bash.code, bash.lang) == ("ls -la", "bash")
    assert part_view(tool(ToolStatePending(input={"path": "a.py"}), name="read")).code is None  # type: ignore[union-attr]


def test_a_plot_card_shows_the_image_not_its_note() -> None:
    """`[image/png attached]` (what the model reads) stood as a line above the plot itself."""
    plot = tool(
        ToolStateCompleted(
            input={"code": "df.plot()"},
            output="<Axes: >\n[image/png attached]",
            time=ToolTimeCompleted(start=1),
            attachments=[Attachment(mime="image/png", url="data:image/png;base64,AAA")],
        )
    )
    view = Renderer().render(PartUpdated(part=plot))[0].part  # type: ignore[union-attr]
    assert view.output == "<Axes: >" and view.attachments
    alone = plot.model_copy(
        update={"state": plot.state.model_copy(update={"output": "[image/png attached]"})}
    )
    view = Renderer().render(PartUpdated(part=alone))[0].part  # type: ignore[union-attr]
    assert view.output is None and view.attachments  # no empty "Output" above the image


def test_a_running_tool_shows_its_reported_progress() -> None:
    report = {"progress": 2, "total": 5, "fraction": 0.4, "message": "indexing"}
    running = tool(ToolStateRunning(input={"q": "x"}, metadata={"progress": report}))
    view = Renderer().render(PartUpdated(part=running))[0].part  # type: ignore[union-attr]
    assert view.progress is not None and (view.progress.fraction, view.progress.message) == (0.4, "indexing")
    # whatever a misbehaving server sent: a card without a bar, not a broken stream
    odd = tool(ToolStateRunning(input={"q": "x"}, metadata={"progress": {"progress": "lots", "x": 1}}))
    assert Renderer().render(PartUpdated(part=odd))[0].part.progress is None  # type: ignore[union-attr]


NOT_SHOWN = {"step-start", "step-finish", "patch"}
"""Bookkeeping parts: no view (the UI shows what the user reads, not how steps are counted)."""


def test_one_view_per_shown_part_type_with_only_its_fields() -> None:
    """``PartView`` mirrors ``core.messages.Part``: a new part type must be given a view (or
    listed as bookkeeping), and each view's ``type`` is the part's."""
    part_types = {get_args(c.model_fields["type"].annotation)[0] for c in get_args(AnyPart)}
    view_types = {get_args(c.model_fields["type"].annotation)[0]: c for c in get_args(AnyPartView)}
    assert set(view_types) == part_types - NOT_SHOWN
    samples = [
        TextPart(id="x", text="hi", **IDS),
        ReasoningPart(id="r", text="hm", **IDS),
        tool(ToolStatePending(input={"command": "ls"})),
        FilePart(id="f", mime="image/png", url="data:image/png;base64,AAA", **IDS),
        RetryPart(id="rt", attempt=1, error=RetryError(message="429"), next=5, **IDS),
        CompactionPart(id="c", auto=False, **IDS),
        SubtaskPart(id="s", prompt="p", description="look around", agent="explore", **IDS),
    ]
    assert {p.type for p in samples} == set(view_types)
    for part in samples:
        view = part_view(part)
        assert isinstance(view, view_types[part.type]) and view.id == part.id
        wire = to_wire(PartMsg(part=view))["part"]
        assert set(wire) <= set(type(view).model_fields), wire  # nothing from other part types
        assert UIMessageAdapter.validate_python({"kind": "part", "part": wire}) == PartMsg(part=view)
    assert to_wire(PartMsg(part=part_view(samples[5])))["part"] == {  # type: ignore[arg-type]
        "id": "c", "message_id": "msg_2", "type": "compaction", "auto": False, "overflow": False
    }  # fmt: skip
    assert part_view(StepStartPart(id="st", **IDS)) is None
    assert part_view(TextPart(id="n", text="noted", ignored=True, **IDS)) is None
