"""What every fault case checks afterwards: nothing that had finished is gone from the store.

``finished`` reads the store file through a fresh ``SqliteStore`` — what a new kernel
would see — and returns every settled part: user prompts, the text of answered steps,
completed or failed tool results. A case takes it before the fault and passes it to
``assert_kept`` after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, TextPart, ToolPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore

Settled = dict[str, tuple[str, str]]


def finished(db: Path) -> Settled:
    """Part id → (kind, content) of every settled part in the store file, all sessions."""
    out: Settled = {}
    with SqliteStore(db) as store:
        for session in store.list_sessions(None):
            for m in store.messages(session.id):
                info = m.info
                answered = isinstance(info, UserMessage) or (
                    isinstance(info, AssistantMessage) and info.finish is not None
                )
                for p in m.parts:
                    if isinstance(p, TextPart) and answered:
                        out[p.id] = ("text", p.text)
                    elif isinstance(p, ToolPart) and p.state.status == "completed":
                        out[p.id] = ("tool", p.state.output)
                    elif isinstance(p, ToolPart) and p.state.status == "error":
                        out[p.id] = ("tool-error", p.state.error)
    return out


def assert_kept(db: Path, before: Settled) -> Settled:
    """Every part settled before the fault is still in the file, unchanged; returns the new state."""
    after = finished(db)
    lost = {pid: value for pid, value in before.items() if after.get(pid) != value}
    assert not lost, f"lost or changed after the fault: {lost}"
    return after


FIRST_TURN = (
    Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "notes.txt", "content": "kept\n"}))]),
    Reply(text="Wrote notes.txt."),
)
"""A finished turn (a tool result and an answer) to run before the fault."""


async def first_turn(runtime: Any, server: Any) -> tuple[str, Settled]:
    """Run FIRST_TURN headless; return the session id and what it settled."""
    server.queue(*FIRST_TURN)
    sid: str = await runtime.prompt("write the notes")
    runtime.store.flush()
    before = finished(runtime.store.path)
    kinds = sorted(kind for kind, _ in before.values())
    assert kinds == ["text", "text", "tool"], before
    return sid, before


def parts(runtime: Any, sid: str, kind: type | None = None) -> list[Any]:
    return [p for m in runtime.store.messages(sid) for p in m.parts if kind is None or isinstance(p, kind)]


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "tool"]


def one_line(result: Any) -> str:
    """The single message line on stderr; fails when there is a traceback or more."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


BAD_CONFIGS = {  # case → (bytes of jupyter-agent.json, what the one line says)
    "syntax": (b'{"model": "openai/x",}', "invalid JSON at line 1"),
    "wrong type": (b'{"steps": "many"}', "steps: Input should be a valid integer"),
    "unknown key": (b'{"modle": "openai/x"}', "did you mean 'model'?"),
    "top-level array": (b'["openai/x"]', "the top level must be a JSON object"),
    "not utf-8": (b'{"model": "caf\xe9"}', "is not UTF-8 text"),
    "api_base not a URL": (
        b'{"api_base": "localhost:11434"}',
        "api_base: 'localhost:11434' is not a server address",
    ),
}


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str = "2m") -> Iterator[Path]:
    """Mount a real tmpfs of ``size`` on ``folder``; skips where mounting is not allowed."""
    import pytest

    if not shutil.which("mount"):
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def one_message(result: Any) -> str:
    """What a cell told the user about an expected failure, with no traceback: the printed text
    and, in a blocking (headless) cell, the one-line ``AgentRunError`` it raises so a notebook
    run stops there (``magics/outcome.py``)."""
    shown = result.stdout
    if result.status != "ok":
        error = result.error or {}
        assert error.get("ename") == "AgentRunError", result
        assert error.get("traceback") == [f"AgentRunError: {error['evalue']}"], error  # no frames
        shown += error["evalue"]
    assert "Traceback" not in shown + result.stderr, result
    return str(shown)


async def stop_once(runtime: Any, task: Any, seen: Callable[[Any], bool], wait: float = 60) -> float:
    """Once an event shows ``seen`` (and half a second more), Stop: the seconds the run took to end."""
    deadline = time.monotonic() + wait
    while not any(seen(e) for e in runtime.events):
        assert time.monotonic() < deadline
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    stopped_at = time.monotonic()
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return time.monotonic() - stopped_at
