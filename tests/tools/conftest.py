"""A ToolContext over a temporary project that records permission asks, patches and progress.

No mocks: the ``ask`` is a real async function with the permission layer's signature,
``on_patch`` and ``on_metadata`` are plain collectors, files and processes are real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tools_support import Call, Recorder

from jupyter_agent.tools.base import Tool, ToolContext, ToolResult


@pytest.fixture
def rec() -> Recorder:
    return Recorder()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


@pytest.fixture
def ctx(root: Path, rec: Recorder) -> ToolContext:
    return ToolContext(
        session_id="ses_t",
        message_id="msg_t",
        call_id="call_t",
        agent="build",
        project_root=root,
        working_dir=root,
        ask=rec.ask,
        on_patch=rec.patches.extend,
        on_metadata=lambda title, meta: rec.progress.append((title, meta)),
    )


@pytest.fixture
def call(ctx: ToolContext) -> Call:
    """``await call(ReadTool(), filePath="a.txt")``: validate like the runner, then run."""

    async def run(tool: Tool[Any], **args: Any) -> ToolResult:
        return await tool.run(tool.Args.model_validate(args), ctx)

    return run
