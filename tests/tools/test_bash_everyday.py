"""Issue 36: everyday commands run under the default rules (no rule configured at all).

Each shape crashed the rule checker before (``IndexError`` in ``suspects()`` on a word ending
in ``/``): the model was told an internal error and nothing ran. Here the whole loop runs them
(scripted model, headless) and each command's effect is checked on disk or in its output.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from bash_corpus import SHAPES, project
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart


@pytest.fixture
def venv_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """``python3`` is this environment's (it has pytest), as in a notebook's kernel."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(("command", "says", "leaves"), SHAPES, ids=[s[0] for s in SHAPES])
async def test_everyday_commands_run_under_the_default_rules(
    make_runtime: Any,
    scripted_model: Any,
    tmp_path: Path,
    venv_on_path: None,
    command: str,
    says: str | None,
    leaves: tuple[str, str] | None,
) -> None:
    if command.startswith("node") and not _which("node"):
        pytest.skip("node is not installed")
    project(tmp_path)
    part = await run_bash(make_runtime(), scripted_model, command)
    assert part.state.status == "completed", part.state
    output = part.state.output  # type: ignore[union-attr]
    assert "Error" not in output and "(exit code" not in output, output
    if says is not None:
        assert says in output
    if leaves is not None:
        name, text = leaves
        assert (tmp_path / name).read_text() == text


async def run_bash(runtime: Any, model: Any, command: str) -> ToolPart:
    """The model runs ``command`` once; the stored tool part."""
    model.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]), Reply(text="ok"))
    sid = await runtime.prompt("do it")
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


def _which(name: str) -> bool:
    return any((Path(p) / name).exists() for p in os.environ.get("PATH", "").split(os.pathsep))
