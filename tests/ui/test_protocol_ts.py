"""The panel's TypeScript protocol is generated from the kernel's pydantic models and kept in sync."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.tools.base import ToolError
from jupyter_agent.ui.notebook_bridge import PanelNotebookBridge
from jupyter_agent.ui.panel_protocol import NotebookOpMsg, NotebookReply, PanelRequestAdapter
from jupyter_agent.ui.tsgen import generate, generate_from

PROTOCOL_TS = Path(__file__).resolve().parents[2] / "labextension" / "src" / "protocol.ts"


def test_committed_protocol_ts_matches_the_python_models() -> None:
    assert PROTOCOL_TS.read_text(encoding="utf-8") == generate(), (
        "labextension/src/protocol.ts is stale: run "
        "`python -m jupyter_agent.ui.tsgen > labextension/src/protocol.ts`"
    )


def test_generated_types_cover_both_directions() -> None:
    ts = generate()
    for name in ("HelloMsg", "NotebookOpMsg", "DeltaMsg", "PermissionMsg", "PromptRequest", "NotebookReply"):
        assert f"export interface {name} {{" in ts
    assert 'kind: "delta";' in ts and 'type: "nb_reply";' in ts
    assert "percent?: number;" in ts  # optional fields stay optional


def test_part_views_are_a_union_the_renderer_narrows_on_type() -> None:
    """One view per shown part type, each with only its fields; the widget's stream is a type."""
    ts = generate()
    views = "TextView | ReasoningView | ToolView | FileView | RetryView | CompactionView | SubtaskView"
    assert f"export type PartView = {views};" in ts
    assert "export type UIMessage = PartMsg | DeltaMsg |" in ts
    assert "messages: LiveMessage[];" in ts  # a replay holds typed messages, not records
    tool = ts[ts.index("export interface ToolView {") :]
    tool = tool[: tool.index("}")]
    assert 'type: "tool";' in tool and "input: string;" in tool and "attempt" not in tool
    assert "export interface PartView" not in ts


def test_a_union_member_without_its_literal_is_refused() -> None:
    """TypeScript narrows a discriminated union on each member's literal: without one, no type."""
    member = {"type": "object", "properties": {"type": {"type": "string"}}}
    union = {
        "oneOf": [{"$ref": "#/$defs/A"}],
        "discriminator": {"propertyName": "type", "mapping": {"a": "#/$defs/A"}},
        "$defs": {"A": member},
    }
    with pytest.raises(ValueError, match="A has no literal type = 'a'"):
        generate_from({"Broken": union})
    member["properties"]["type"] = {"const": "a", "type": "string"}
    assert "export type Broken = A;" in generate_from({"Broken": union})


def test_requests_validate_and_reject_unknown_types() -> None:
    ok = PanelRequestAdapter.validate_python({"type": "approve", "request_id": "p1", "reply": "once"})
    assert ok.type == "approve"
    with pytest.raises(ValueError):
        PanelRequestAdapter.validate_python({"type": "format_disk"})


async def test_bridge_round_trip_and_failures() -> None:
    sent: list[NotebookOpMsg] = []
    bridge = PanelNotebookBridge(sent.append, asyncio.get_running_loop())

    async def answer() -> None:
        while not sent:
            await asyncio.sleep(0)
        bridge.resolve(NotebookReply(op_id=sent[0].op_id, ok=True, cell_id="c9"))

    answered = asyncio.create_task(answer())
    assert await bridge.insert_cell(0, "x = 1", "code") == "c9"
    await answered
    assert sent[0].op == "insert" and sent[0].source == "x = 1"

    async def refuse() -> None:
        while len(sent) < 2:
            await asyncio.sleep(0)
        bridge.resolve(NotebookReply(op_id=sent[1].op_id, ok=False, error="No cell with id c1"))

    refused = asyncio.create_task(refuse())
    with pytest.raises(ToolError, match="No cell with id c1"):
        await bridge.delete_cell("c1")
    await refused

    waiting = asyncio.create_task(bridge.read_cells())
    while len(sent) < 3:
        await asyncio.sleep(0)
    bridge.close()  # the panel went away: the tool fails now, not after its timeout
    with pytest.raises(ToolError, match="closed"):
        await waiting
    with pytest.raises(ToolError, match="closed"):
        await bridge.read_cells()


def test_bridge_refuses_a_blocking_run() -> None:
    """A --wait run has its own loop: the panel's reply could never arrive."""
    bridge = PanelNotebookBridge(lambda m: None, asyncio.new_event_loop())

    async def go() -> Any:
        return await bridge.read_cells()

    with pytest.raises(ToolError, match="background"):
        asyncio.run(go())
