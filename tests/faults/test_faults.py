"""Fault injection: each case says what the user sees and checks nothing completed is lost.

Provider faults (429, 500, dropped streams, malformed JSON, unknown tools, Stop during a
tool) are in tests/agent/test_loop.py; interrupts and kernel restarts in
tests/magics/test_kernel.py; corrupt, newer and shared databases in tests/storage/; path
traversal in tests/tools/test_external_paths.py. This file adds the rest.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import kernel_harness
from pydantic import BaseModel
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import TextPart, ToolPart
from jupyter_agent.tools.base import Tool, ToolContext, ToolResult


class Boom(BaseModel):
    pass


class BrokenTool(Tool[Boom]):
    name = "broken"
    description = "Always fails with a bug."
    Args = Boom

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        raise ValueError("internal bug in the tool")


def _parts(runtime: Any, sid: str) -> list[Any]:
    return [p for m in runtime.store.messages(sid) for p in m.parts]


async def test_tool_exception_is_an_error_the_model_sees(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: the tool card in error with the exception; the agent carries on."""
    scripted_server.queue(Reply(tool_calls=[ToolCall("broken", "{}")]), Reply(text="That tool is broken."))
    runtime = make_runtime()
    runtime.registry.register(BrokenTool())
    sid = await runtime.prompt("use the broken tool")
    tool = next(p for p in _parts(runtime, sid) if isinstance(p, ToolPart))
    assert tool.state.status == "error" and tool.state.error == "ValueError: internal bug in the tool"
    assert [p.text for p in _parts(runtime, sid) if isinstance(p, TextPart)][-1] == "That tool is broken."


async def test_ten_megabytes_and_binary_output(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """User sees: the tool completes; the model gets the tail plus where the full text is."""
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("bash", json.dumps({"command": "head -c 10000000 /dev/zero | tr '\\\\0' 'x'"}))
            ]
        ),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "head -c 4000 /dev/urandom"}))]),
        Reply(text="done"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("make noise")
    big, binary = [p for p in _parts(runtime, sid) if isinstance(p, ToolPart)]
    assert big.state.status == "completed" and len(big.state.output.encode()) < 60_000
    saved = Path(big.state.metadata["output_path"])
    assert saved.stat().st_size == 10_000_000
    assert binary.state.status == "completed" and "\ufffd" in binary.state.output
    row = sqlite3.connect(runtime.store.path).execute("SELECT MAX(LENGTH(data)) FROM part").fetchone()[0]
    assert row < 200_000  # the store holds the truncated text, not 10 MB


async def test_api_keys_never_reach_the_store(
    make_runtime: Any, scripted_server: Any, monkeypatch: Any
) -> None:
    """User sees: [REDACTED:NAME] where a tool printed a key; the key is stored nowhere."""
    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "env; seq 1 3000"}))]),
        Reply(text="printed the environment"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("show me the environment")
    store_dir = runtime.store.path.parent
    runtime.store.flush()
    for path in [runtime.store.path, *store_dir.glob("*.db-wal"), *(store_dir / "tool-output").glob("*")]:
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in json.dumps(scripted_server.requests[1]["body"])
    tool = next(p for p in _parts(runtime, sid) if isinstance(p, ToolPart))
    saved = Path(tool.state.metadata["output_path"]).read_text()
    assert "[REDACTED:ANTHROPIC_API_KEY]" in saved


async def test_two_sessions_write_one_store_at_once(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: both answers; no "database is locked"."""
    scripted_server.default = Reply(text="concurrent answer " * 40, chunk_size=3, delay_per_chunk=0.002)
    runtime = make_runtime()
    other = make_runtime()
    first, second = await asyncio.gather(runtime.prompt("one"), other.prompt("two"))
    for rt, sid in ((runtime, first), (other, second)):
        texts = [p.text for p in _parts(rt, sid) if isinstance(p, TextPart)]
        assert texts[-1] == ("concurrent answer " * 40)


def test_corrupt_store_in_a_kernel(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees: a notice that the file was moved aside, and the prompt still works."""
    folder = tmp_path / ".jupyter-agent"
    folder.mkdir()
    (folder / "sessions.db").write_bytes(b"garbage" * 1000)
    scripted_server.queue(Reply(text="works anyway"))
    kernel = start_kernel()
    assert kernel.execute("%agent --wait hello").status == "ok"
    notices = [
        c.get("text", "")
        for _, c in kernel_harness.custom_messages(kernel.iopub)
        if c.get("kind") == "notice"
    ]
    assert any("moved to" in n and "sessions.db.corrupt-" in n for n in notices)
    assert next(iter(folder.glob("sessions.db.corrupt-*"))).read_bytes() == b"garbage" * 1000


def test_newer_store_is_refused_in_a_kernel(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: which version is needed; the file is untouched; no traceback."""
    from jupyter_agent.storage import migrations
    from jupyter_agent.storage.sqlite_store import SqliteStore

    store = SqliteStore.for_directory(tmp_path)
    store.close()
    conn = sqlite3.connect(store.path)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    before = store.path.read_bytes()
    kernel = start_kernel()
    result = kernel.execute("%agent --wait hello")
    assert (
        result.status == "ok" and "newer jupyter-agent" in result.stdout and "Traceback" not in result.stdout
    )
    assert store.path.read_bytes() == before
