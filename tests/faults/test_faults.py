"""The fault suite. Each case says what the user sees and checks nothing finished is lost.

Where each fault lives:

- test_provider_faults.py — 429 with Retry-After, 500s (recovering and not), a
  connection dropped mid-stream.
- test_faults.py (this file) — bad tool calls: malformed JSON, an unknown tool, a tool
  that raises, 10 MB and binary output, Stop while a tool runs.
- test_kernel_faults.py — in a real kernel: Stop on a slow stream, a kernel interrupt
  during a ``python`` tool, SIGKILL of the kernel mid-tool and mid-stream, then resume.
- test_storage_faults.py — corrupt and newer-schema databases (store and kernel), a
  process SIGKILLed while writing, two processes / two runtimes / two kernels on one store.
- test_path_faults.py — ``../../etc/passwd`` and symlinks out of the project root.
- test_secrets.py — API keys never in the store, the saved tool outputs or the requests.

"Nothing finished is lost" is checked with ``faults_support.finished``: the settled parts
(user prompts, text of answered steps, tool results) read back from the file on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from faults_support import assert_kept, first_turn, parts, tool_results
from pydantic import BaseModel
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, TextPart, ToolPart
from jupyter_agent.tools.base import Tool, ToolContext, ToolResult


class Boom(BaseModel):
    pass


class BrokenTool(Tool[Boom]):
    name = "broken"
    description = "Always fails with a bug."
    Args = Boom

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        raise ValueError("internal bug in the tool")


async def test_malformed_tool_json_becomes_tool_error(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: the tool card in error ("invalid JSON …"); the model is told and answers."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(Reply(tool_calls=[ToolCall("read", '{"filePath": ')]), Reply(text="sorry, fixed"))
    await runtime.prompt("read it", session_id=sid)
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "error" and "JSON" in tool.state.error
    assert "JSON" in tool_results(scripted_server.requests[-1])[-1]
    assert parts(runtime, sid, TextPart)[-1].text == "sorry, fixed"
    assert_kept(runtime.store.path, before)


async def test_unknown_tool_is_reported_to_the_model(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: "Unknown tool 'teleport'" on the card, with the tools that do exist."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(Reply(tool_calls=[ToolCall("teleport", "{}")]), Reply(text="ok"))
    await runtime.prompt("go", session_id=sid)
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "error" and "Unknown tool 'teleport'" in tool.state.error
    assert "read" in tool.state.error  # lists what is available
    assert_kept(runtime.store.path, before)


async def test_tool_exception_is_an_error_the_model_sees(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: the tool card in error with the exception; the agent carries on."""
    runtime = make_runtime()
    runtime.registry.register(BrokenTool())
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(Reply(tool_calls=[ToolCall("broken", "{}")]), Reply(text="That tool is broken."))
    await runtime.prompt("use the broken tool", session_id=sid)
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "error" and tool.state.error == "ValueError: internal bug in the tool"
    assert parts(runtime, sid, TextPart)[-1].text == "That tool is broken."
    assert_kept(runtime.store.path, before)


async def test_ten_megabytes_and_binary_output(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: both tools complete; the model gets the tail plus where the full text is."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "yes xxxxxxxxx | head -c 10000000"}))]),
        Reply(
            tool_calls=[ToolCall("bash", json.dumps({"command": "printf '\\377\\376\\200%.0s' $(seq 1000)"}))]
        ),
        Reply(text="done"),
    )
    await runtime.prompt("make noise", session_id=sid)
    big, binary = parts(runtime, sid, ToolPart)[-2:]
    assert big.state.status == "completed" and len(big.state.output.encode()) < 60_000
    saved = Path(big.state.metadata["output_path"])
    assert saved.stat().st_size == 10_000_000
    assert binary.state.status == "completed" and "\ufffd" in binary.state.output
    row = sqlite3.connect(runtime.store.path).execute("SELECT MAX(LENGTH(data)) FROM part").fetchone()[0]
    assert row < 200_000  # the store holds the truncated text, not 10 MB
    assert_kept(runtime.store.path, before)


async def test_stop_during_running_tool(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: within seconds, the card says "Tool execution aborted" with the output so far."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo started; sleep 30"}))])
    )
    task = asyncio.create_task(runtime.prompt("wait", session_id=sid))
    for _ in range(1200):  # up to 60 s: a loaded machine starts the shell slowly
        await asyncio.sleep(0.05)
        running = [
            e
            for e in runtime.events
            if e.type == "part.updated"
            and isinstance(e.part, ToolPart)
            and e.part.state.status == "running"
            and "started" in str(e.part.state.metadata.get("output", ""))
        ]
        if running:
            break
    stopped_at = time.monotonic()
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert time.monotonic() - stopped_at < 15  # not the 30 s sleep (room for a loaded machine)
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "error" and tool.state.error == "Tool execution aborted"
    assert tool.state.metadata.get("interrupted") is True
    assert "started" in str(tool.state.metadata.get("output", ""))
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error and last.error.name == "aborted"
    assert_kept(runtime.store.path, before)
