"""Streamed text reaches the bus once per frame, exact and complete, in order.

User sees: a fast model's answer streams as smoothly as before, the kernel spends its time
on the model instead of on one event per token, and a Stop keeps every word that arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from scripted_server import Reply

from jupyter_agent.agent.delta_frames import FRAME_S, DeltaFrames
from jupyter_agent.core.events import PartUpdated
from jupyter_agent.core.messages import AnyPart, ReasoningPart, TextPart
from jupyter_agent.ui.widget import AgentWidget


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _frames(clock: Clock) -> tuple[DeltaFrames, list[tuple[str, str]]]:
    out: list[tuple[str, str]] = []

    def emit(part: AnyPart, delta: str) -> None:
        out.append((part.id, delta))

    return DeltaFrames(emit, clock=clock), out


def _shown(sent: list[dict[str, Any]]) -> str:
    """The streamed part's text as the view builds it: its snapshot, then its deltas."""
    deltas = [m for m in sent if m["kind"] == "delta"]
    pid = deltas[0]["part_id"]
    snapshot = next(m["part"]["text"] for m in sent if m["kind"] == "part" and m["part"]["id"] == pid)
    return str(snapshot) + "".join(m["text"] for m in deltas if m["part_id"] == pid)


def _grow(part: TextPart | ReasoningPart, delta: str) -> TextPart | ReasoningPart:
    part.text += delta
    return part


async def test_the_first_delta_goes_at_once_then_one_event_per_frame() -> None:
    clock = Clock()
    frames, out = _frames(clock)
    part = TextPart(id="prt_1", session_id="s", message_id="m")
    frames.add(_grow(part, "Hel"), "Hel")
    assert out == [("prt_1", "Hel")]  # the answer starts without waiting a frame
    for chunk in "lo, world":
        clock.now += FRAME_S / 20
        frames.add(_grow(part, chunk), chunk)
    assert out == [("prt_1", "Hel")] and frames.pending
    clock.now += FRAME_S
    frames.add(_grow(part, "!"), "!")  # the frame is over: everything so far, joined
    assert out == [("prt_1", "Hel"), ("prt_1", "lo, world!")]
    assert not frames.pending


async def test_flush_publishes_every_part_in_the_order_it_started() -> None:
    clock = Clock()
    frames, out = _frames(clock)
    thinking = ReasoningPart(id="prt_1", session_id="s", message_id="m")
    text = TextPart(id="prt_2", session_id="s", message_id="m")
    frames.add(_grow(thinking, "a"), "a")
    frames.add(_grow(thinking, "b"), "b")
    frames.add(_grow(text, "x"), "x")
    frames.add(_grow(thinking, "c"), "c")
    frames.flush()
    assert out == [("prt_1", "a"), ("prt_1", "bc"), ("prt_2", "x")]
    frames.flush()  # nothing left: nothing sent
    assert len(out) == 3


def test_without_a_running_loop_every_delta_goes_at_once() -> None:
    frames, out = _frames(Clock())
    part = TextPart(id="prt_1", session_id="s", message_id="m")
    for chunk in "abc":
        frames.add(_grow(part, chunk), chunk)
    assert out == [("prt_1", "a"), ("prt_1", "b"), ("prt_1", "c")]  # nothing could run a timer


async def test_a_stream_that_pauses_mid_frame_is_published_by_the_timer() -> None:
    frames, out = _frames(Clock())  # a clock that never moves: only the timer can publish
    part = TextPart(id="prt_1", session_id="s", message_id="m")
    frames.add(_grow(part, "a"), "a")
    frames.add(_grow(part, "b"), "b")
    assert out == [("prt_1", "a")]
    await asyncio.sleep(FRAME_S * 3)
    assert out == [("prt_1", "a"), ("prt_1", "b")]
    frames.add(_grow(part, "c"), "c")  # the frame the timer opened is still open
    frames.flush()
    assert "".join(d for _, d in out) == part.text == "abc"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.text(min_size=1, max_size=5), st.sampled_from([0, 0.001, 0.02, 0.1])), max_size=80)
)
def test_what_is_published_is_exactly_what_streamed(chunks: list[tuple[str, float]]) -> None:
    clock = Clock()
    frames, out = _frames(clock)
    part = TextPart(id="prt_1", session_id="s", message_id="m")

    async def stream() -> None:  # on a running loop, as the agent's stream is
        for chunk, gap in chunks:
            clock.now += gap
            frames.add(_grow(part, chunk), chunk)
        frames.flush()

    asyncio.run(stream())
    assert "".join(d for _, d in out) == part.text == "".join(c for c, _ in chunks)
    assert len(out) <= len(chunks)


async def test_a_fast_answer_reaches_the_widget_exact_and_complete(
    make_runtime: Any, scripted_model: Any
) -> None:
    answer = "".join(f"word{i} " for i in range(4_000))
    scripted_model.queue(Reply(text=answer, chunk_size=7))
    runtime = make_runtime()
    sid = runtime.new_session().id
    sent: list[dict[str, Any]] = []

    class Recording(AgentWidget):
        def send(self, content: Any, buffers: Any = None) -> None:
            sent.append(content)

    widget = Recording(runtime.bus, sid)
    await runtime.prompt("write", session_id=sid)
    widget.done()
    assert _shown(sent) == answer
    published = [e for e in runtime.events if isinstance(e, PartUpdated) and e.delta]
    assert "".join(e.delta or "" for e in published) == answer
    assert len(published) < len(answer) / 7  # fewer events than chunks: frames, not tokens
    widget.close()


async def test_stop_mid_stream_keeps_every_delta_that_arrived(make_runtime: Any, scripted_model: Any) -> None:
    answer = "".join(f"w{i} " for i in range(3_000))
    scripted_model.queue(Reply(text=answer, chunk_size=3, delay_per_chunk=0.002))
    runtime = make_runtime()
    sid = runtime.new_session().id
    published: list[str] = []
    sent: list[dict[str, Any]] = []

    class Recording(AgentWidget):
        def send(self, content: Any, buffers: Any = None) -> None:
            sent.append(content)

    widget = Recording(runtime.bus, sid)

    def watch(event: Any) -> None:
        if isinstance(event, PartUpdated) and event.delta:
            published.append(event.delta)
            if len(published) == 5:
                runtime.stop(sid)

    runtime.bus.subscribe(watch)
    task = asyncio.ensure_future(runtime.prompt("write", session_id=sid))
    with contextlib.suppress(asyncio.CancelledError):
        await task
    widget.done()
    stored = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, TextPart) and p.text]
    text = stored[-1].text
    assert 0 < len(text) < len(answer) and answer.startswith(text)
    assert "".join(published) == text  # the frame pending at the Stop was published, not dropped
    assert _shown(sent) == text
    widget.close()
