"""Issue 13.7: no tool can hang the kernel beyond the user's reach."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools import search_proc
from jupyter_agent.tools.base import ToolContext, ToolError
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.grep import GrepTool, find_rg
from jupyter_agent.tools.read import MAX_LINE_CHARS, ReadTool
from jupyter_agent.tools.write import WriteTool

EVIL = "(a+)+$"
"""Exponential backtracking in Python's ``re`` against ``"a" * 40 + "!"``."""


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext("s", "m", "c", "build", tmp_path, tmp_path)


def _within(seconds: float, make: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run ``make()`` on its own loop in a daemon thread: a call that blocks the thread
    fails the test instead of hanging the suite."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(make())
        except BaseException as exc:  # handed to the test below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_ripgrep_ships_with_the_package() -> None:
    rg = find_rg()
    assert rg is not None and os.access(rg, os.X_OK)


def test_fallback_grep_is_time_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("a" * 40 + "!\n")
    monkeypatch.setattr(search_proc, "SEARCH_TIMEOUT_S", 1.0)
    tool = GrepTool(use_ripgrep=False)
    with pytest.raises(ToolError, match=r"stopped after 1 s.*nested repeats"):
        _within(10, lambda: tool.run(tool.Args(pattern=EVIL), _ctx(tmp_path)))


@pytest.mark.parametrize("kind", ["fifo", "socket", "device"])
def test_read_and_grep_refuse_special_files(tmp_path: Path, kind: str) -> None:
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)
    elif kind == "socket":
        path = tmp_path / "sock"
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    else:
        path = Path("/dev/zero")
    ctx = _ctx(tmp_path)
    with pytest.raises(ToolError, match="not a regular file"):
        _within(5, lambda: ReadTool().run(ReadTool.Args(filePath=str(path)), ctx))
    with pytest.raises(ToolError, match="not a file or folder"):
        _within(5, lambda: GrepTool().run(GrepTool.Args(pattern="x", path=str(path)), ctx))


def test_write_and_edit_refuse_a_named_pipe(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    ctx = _ctx(tmp_path)
    with pytest.raises(ToolError, match="named pipe"):
        _within(5, lambda: WriteTool().run(WriteTool.Args(filePath="pipe", content="x"), ctx))
    edit = EditTool()
    with pytest.raises(ToolError, match="named pipe"):
        _within(5, lambda: edit.run(edit.Args(filePath="pipe", oldString="a", newString="b"), ctx))


def test_a_huge_single_line_is_read_by_bytes(tmp_path: Path) -> None:
    path = tmp_path / "one-line.json"
    chunk = b"a" * (1 << 20)
    with path.open("wb") as fh:
        for _ in range(64):  # 64 MB without a newline
            fh.write(chunk)
        fh.write(b"\nsecond line\n")
    tracemalloc.start()
    try:
        result = _within(60, lambda: ReadTool().run(ReadTool.Args(filePath=str(path)), _ctx(tmp_path)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * (1 << 20), f"peak {peak} bytes"
    first, second = result.output.splitlines()[1:3]
    assert first == "00001| " + "a" * MAX_LINE_CHARS + "..."
    assert second == "00002| second line" and result.metadata["truncated"] is True


def _with_tool(make_runtime: Any, tool: Any) -> Any:
    def make(**overrides: Any) -> Any:
        runtime = make_runtime(**overrides)
        runtime.registry.register(tool)
        return runtime

    return make


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("bash", {"command": "echo started; sleep 300"}),
        ("grep", {"pattern": EVIL}),
    ],
)
async def test_stop_ends_a_running_tool_at_once(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, tool: str, args: dict[str, Any]
) -> None:
    (tmp_path / "a.txt").write_text("a" * 40 + "!\n")
    runtime = _with_tool(make_runtime, GrepTool(use_ripgrep=False))()
    scripted_model.queue(Reply(tool_calls=[ToolCall(tool, json.dumps(args))]))
    task = asyncio.create_task(runtime.prompt("go"))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        running = [
            e.part
            for e in runtime.events
            if e.type == "part.updated" and isinstance(e.part, ToolPart) and e.part.state.status == "running"
        ]
        if running and (tool != "bash" or "started" in str(running[-1].state.metadata.get("output", ""))):
            break
    await asyncio.sleep(0.5)  # well inside the tool
    stopped_at = time.monotonic()
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    # well under a second idle; the bound leaves room for a loaded machine, far from the 300 s the tool runs
    assert time.monotonic() - stopped_at < 10
    part = next(
        p for m in runtime.store.messages(running[-1].session_id) for p in m.parts if isinstance(p, ToolPart)
    )
    assert part.state.status == "error" and part.state.metadata.get("interrupted") is True
