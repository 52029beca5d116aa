"""A hostile model's moves, shared by the issue-26 tests: one tool call per prompt, through
the whole loop (scripted model, headless unless the runtime says otherwise)."""

from __future__ import annotations

import json
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart


async def run_tool(runtime: Any, model: Any, tool: str, agent: str = "build", **args: Any) -> ToolPart:
    """The model calls ``tool`` once with ``args``; the stored tool part."""
    model.queue(Reply(tool_calls=[ToolCall(tool, json.dumps(args))]), Reply(text="ok"))
    sid = await runtime.prompt("do it", agent=agent)
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


async def run_bash(runtime: Any, model: Any, command: str, agent: str = "build") -> ToolPart:
    return await run_tool(runtime, model, "bash", agent=agent, command=command)


def computed(path: Path) -> str:
    """``path`` spelled so no parser sees it: ``"$(printf '%s' /var/tmp/…)"``."""
    head, tail = str(path)[:5], str(path)[5:]
    return f"\"$(printf '%s%s' {shlex.quote(head)} {shlex.quote(tail)})\""


def refused(part: ToolPart) -> str:
    """The refusal text of a tool part that must have been refused (fails otherwise)."""
    assert part.state.status == "error", part.state
    error = str(getattr(part.state, "error", ""))
    assert "denied" in error or "needs" in error or "rejected" in error, error
    return error


@contextmanager
def outside_folder() -> Iterator[Path]:
    """A folder outside the project and outside the temp folder (the sandbox lets commands
    write the temp folder, and pytest's projects live in it)."""
    folder = Path(tempfile.mkdtemp(prefix="ja-outside-", dir="/var/tmp"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
