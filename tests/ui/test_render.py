"""Renderer and DeltaBuffer: deltas not snapshots, coalescing, and O(text) traffic."""

from __future__ import annotations

import json
from typing import Any

from jupyter_agent.core.events import PartUpdated
from jupyter_agent.core.messages import (
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateRunning,
    ToolTimeCompleted,
)
from jupyter_agent.ui.render import OUTPUT_CAP, DeltaBuffer, Renderer, gauge_message, input_summary


def _text(text: str = "") -> TextPart:
    return TextPart(id="prt_1", session_id="s", message_id="m", text=text)


def test_first_event_is_a_part_then_deltas() -> None:
    r = Renderer()
    first = r.render(PartUpdated(part=_text()))
    assert first[0]["kind"] == "part"
    assert r.render(PartUpdated(part=_text("ab"), delta="ab")) == [
        {"kind": "delta", "id": "prt_1", "text": "ab"}
    ]
    assert r.render(PartUpdated(part=_text("ab"))) == []  # the final write adds nothing new


def test_tool_summaries_and_caps() -> None:
    assert input_summary("bash", {"command": "ls -la\nrm x"}) == "ls -la"
    assert input_summary("read", {"filePath": "a.py"}) == "a.py"
    assert len(input_summary("python", {"code": "x" * 500})) == 120
    r = Renderer()
    running = ToolPart(
        id="p",
        session_id="s",
        message_id="m",
        call_id="c",
        tool="bash",
        state=ToolStateRunning(input={"command": "make"}),
    )
    done = running.model_copy(
        update={
            "state": ToolStateCompleted(
                input={"command": "make"}, output="y" * (OUTPUT_CAP + 10), time=ToolTimeCompleted(start=1)
            )
        }
    )
    assert r.render(PartUpdated(part=running))[0]["part"]["status"] == "running"
    view = r.render(PartUpdated(part=done))[0]["part"]
    assert view["status"] == "completed" and view["output"].endswith("(10 more chars)")
    assert r.render(PartUpdated(part=done)) == []


def test_gauge_levels() -> None:
    assert gauge_message(45_678, 23) == {
        "kind": "gauge",
        "tokens": 45_678,
        "percent": 23,
        "text": "45,678 tokens · 23% used",
        "level": "ok",
    }
    assert gauge_message(1, 75)["level"] == "warn" and gauge_message(1, 95)["level"] == "high"
    assert gauge_message(1, None)["text"] == "1 tokens"


def test_delta_buffer_coalesces_within_50ms() -> None:
    sent: list[dict[str, Any]] = []
    now = [0.0]
    buf = DeltaBuffer(sent.append, clock=lambda: now[0])
    for i in range(100):
        now[0] = i * 0.0004  # 100 deltas within 40 ms
        buf.push({"kind": "delta", "id": "p", "text": "x"})
    assert sent == []
    buf.push({"kind": "gauge", "text": "g"})  # anything else flushes first, keeping order
    assert sent == [{"kind": "delta", "id": "p", "text": "x" * 100}, {"kind": "gauge", "text": "g"}]


def test_traffic_for_100kb_is_linear() -> None:
    sent: list[dict[str, Any]] = []
    now = [0.0]
    buf = DeltaBuffer(sent.append, clock=lambda: now[0])
    r = Renderer()
    part = _text()
    for m in r.render(PartUpdated(part=part)):
        buf.push(m)
    text = ""
    for i in range(2_000):
        chunk = f"w{i:04d} " * 8  # 48 bytes
        text += chunk
        part = _text(text)
        now[0] += 0.005
        for m in r.render(PartUpdated(part=part, delta=chunk)):
            buf.push(m)
    buf.flush()
    total = sum(len(json.dumps(m)) for m in sent)
    assert "".join(m.get("text", "") for m in sent if m["kind"] == "delta") == text
    assert total <= 1.5 * len(text)
