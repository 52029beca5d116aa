"""Issue 36, end to end: the everyday shapes run under the default rules in the CLI and in a
kernel, as a user meets them (real HTTP to the scripted server, a real store). One prompt
whose step calls every shape; each call must complete and leave its effect."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from bash_corpus import SHAPES, project
from cli_runner import run_cli
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture(autouse=True)
def venv_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` is this environment's (it has pytest), as in a notebook's kernel."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def queue_every_shape(server: Any) -> None:
    calls = [ToolCall("bash", json.dumps({"command": command})) for command, _, _ in SHAPES]
    server.queue(Reply(tool_calls=calls), Reply(text="all ran"))


def check_every_shape(root: Path) -> None:
    store = SqliteStore.for_directory(root)
    try:
        parts = [p for s in store.list_sessions() for m in store.messages(s.id) for p in m.parts]
    finally:
        store.close()
    tools = [p for p in parts if isinstance(p, ToolPart)]
    assert len(tools) == len(SHAPES)
    for part, (command, says, leaves) in zip(tools, SHAPES, strict=True):
        assert part.state.status == "completed", (command, part.state)
        output = part.state.output  # type: ignore[union-attr]
        assert "(exit code" not in output, (command, output)
        if says is not None:
            assert says in output, (command, output)
        if leaves is not None:
            assert (root / leaves[0]).read_text() == leaves[1], command


def test_everyday_commands_run_in_the_cli(tmp_path: Path, scripted_server: Any) -> None:
    project(tmp_path)
    queue_every_shape(scripted_server)
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "clean the data"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "all ran" in result.stdout
    check_every_shape(tmp_path)


def test_everyday_commands_run_in_a_kernel(tmp_path: Path, start_kernel: Any, scripted_server: Any) -> None:
    project(tmp_path)
    kernel = start_kernel()
    queue_every_shape(scripted_server)
    result = kernel.execute("%%agent --wait\nclean the data")
    assert result.status == "ok", result.error
    check_every_shape(tmp_path)
