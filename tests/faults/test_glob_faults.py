"""Issue 27.2: glob patterns that never ended, and braces that multiply.

``**a`` ×14 + ``**b`` against a name of forty ``a`` backtracked forever in ``re`` (and a
thread ignores Ctrl-C and Stop); ``{a,b}`` ×24 expanded to 16 million patterns. Now the
first is matched without backtracking, the second is refused in one line, and a walk of a
big tree ends at once on Stop or Ctrl-C.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import start_run, wait_for
from faults_support import parts, stop_once
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools import glob as glob_tool
from jupyter_agent.tools.base import ToolContext, ToolError
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool

EVIL = "**a" * 14 + "**b"
BRACES = "{a,b}" * 24


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext("s", "m", "c", "build", tmp_path, tmp_path)


def _run_in_thread(seconds: float, coro_factory: Any) -> Any:
    """Fail (rather than hang the suite) when the call blocks its thread."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = asyncio.run(coro_factory())
        except BaseException as exc:  # handed to the test below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_backtracking_pattern_answers_at_once(tmp_path: Path) -> None:
    """User (model) sees: "No files found", not a hung kernel; a real match still matches."""
    (tmp_path / ("a" * 40)).write_text("x")
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / ("a" * 10 + "b")).write_text("x")  # too few a
    tool = GlobTool()
    result = _run_in_thread(20, lambda: tool.run(tool.Args(pattern=EVIL), _ctx(tmp_path)))
    assert result.output == "No files found"
    (tmp_path / "deep" / ("a" * 20 + "b")).write_text("x")
    found = _run_in_thread(20, lambda: tool.run(tool.Args(pattern=EVIL), _ctx(tmp_path)))
    assert found.output == "deep/" + "a" * 20 + "b"


@pytest.mark.parametrize("tool", [GlobTool(), GrepTool(use_ripgrep=False)])
def test_exponential_braces_are_refused(tmp_path: Path, tool: Any) -> None:
    """User (model) sees one line: the pattern expands to too many patterns, use fewer."""
    (tmp_path / "a.txt").write_text("x")
    args = tool.Args(pattern=BRACES) if isinstance(tool, GlobTool) else tool.Args(pattern="x", include=BRACES)
    with pytest.raises(ToolError, match=r"expand to more than 256 patterns; use fewer alternatives"):
        _run_in_thread(20, lambda: tool.run(args, _ctx(tmp_path)))


def test_a_pattern_too_long_is_refused(tmp_path: Path) -> None:
    tool = GlobTool()
    with pytest.raises(ToolError, match=r"Cannot use this glob pattern: the pattern has 5000 characters"):
        _run_in_thread(20, lambda: tool.run(tool.Args(pattern="a" * 5000), _ctx(tmp_path)))


def _big_tree(root: Path, folders: int = 300, files: int = 40) -> None:
    for d in range(folders):
        folder = root / f"d{d}"
        folder.mkdir()
        for f in range(files):
            (folder / f"f{f}.txt").touch()


async def test_stop_ends_a_long_walk(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop during a walk that would take a minute: the call ends at once, as aborted, and the
    walk ends with it. Proven without timing: when the run has ended the walk is still short of
    its 4,000 files, and it then ends (its generator closed) without reaching them."""
    _big_tree(tmp_path, folders=100, files=40)
    runtime = make_runtime()
    walk = glob_tool.walk_files
    walked: list[Path] = []
    ended = threading.Event()

    def crawling(base: Path, *args: Any) -> Any:  # a slow disk: each file takes a while
        try:
            for item in walk(base, *args):
                time.sleep(0.01)
                walked.append(item[0])
                yield item
        finally:
            ended.set()

    monkeypatch.setattr(glob_tool, "walk_files", crawling)
    scripted_model.queue(Reply(tool_calls=[ToolCall("glob", json.dumps({"pattern": EVIL}))]))
    task = asyncio.create_task(runtime.prompt("find"))

    def running(e: Any) -> bool:
        return e.type == "part.updated" and isinstance(e.part, ToolPart) and e.part.state.status == "running"

    # the wait is a hang guard: a loaded machine may spend a minute importing litellm first
    await stop_once(runtime, task, running, wait=300)
    assert len(walked) < 4000, "the run waited for the whole walk"
    assert await asyncio.to_thread(ended.wait, 300), "the walk goes on in its thread after Stop"
    assert len(walked) < 4000, "the walk went on to the end after Stop"
    (part,) = parts(runtime, runtime.latest_session().id, ToolPart)
    assert part.state.status == "error" and part.state.error == "Tool execution aborted"


def test_sigint_ends_a_long_walk(tmp_path: Path, scripted_server: Any) -> None:
    """Ctrl-C during a glob of a slow, huge tree: the command stops within seconds, exit 130."""
    _big_tree(tmp_path, folders=100, files=40)
    scripted_server.queue(Reply(tool_calls=[ToolCall("glob", json.dumps({"pattern": "**/f7.txt"}))]))
    slow_walk = (
        "import time, runpy, jupyter_agent.tools.glob as g\n"
        "w = g.walk_files\n"
        "def crawl(*a):\n"
        "    for item in w(*a):\n"
        "        time.sleep(0.01)\n"
        "        yield item\n"
        "g.walk_files = crawl\n"
        "runpy.run_module('jupyter_agent.cli', run_name='__main__')\n"
    )
    proc = start_run(scripted_server, tmp_path, "find", prefix=[sys.executable, "-c", slow_walk])
    try:
        wait_for(lambda: len(scripted_server.requests) == 1, what="the request")
        time.sleep(2)  # inside the walk
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - stopped_at < 15  # the walk had 40 s to go
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped" in err


def test_glob_of_many_files_keeps_the_newest(tmp_path: Path) -> None:
    """1,500 matches: the 100 newest are listed and the count is honest."""
    _big_tree(tmp_path, folders=30, files=50)
    newest = tmp_path / "d5" / "f5.txt"
    os.utime(newest, (time.time() + 100, time.time() + 100))
    tool = GlobTool()
    result = _run_in_thread(300, lambda: tool.run(tool.Args(pattern="**/*.txt"), _ctx(tmp_path)))
    lines = result.output.splitlines()
    assert lines[0] == "d5/f5.txt" and len(lines) == 102
    assert result.metadata["count"] == 1_500
    assert "showing the 100 newest of 1500 files" in lines[-1]
