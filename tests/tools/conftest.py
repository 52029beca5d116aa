"""A ToolContext over a temporary project, collecting permission asks and patches."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.tools.base import PermissionDenied, ToolContext


class Asks:
    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.reject: set[str] = set()
        self.patches: list[Any] = []

    async def __call__(self, permission: str, patterns: list[str], title: str, metadata: dict[str, Any]) -> None:
        self.calls.append((permission, patterns))
        if permission in self.reject:
            raise PermissionDenied(f"rejected {permission}")


@pytest.fixture
def asks() -> Asks:
    return Asks()


@pytest.fixture
def ctx(tmp_path: Path, asks: Asks) -> ToolContext:
    root = tmp_path / "project"
    root.mkdir()
    return ToolContext(
        session_id="ses_t", message_id="msg_t", call_id="c", agent="build", project_root=root,
        working_dir=root, ask=asks, on_patch=asks.patches.extend, extra={},
    )
