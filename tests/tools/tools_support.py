"""Shared types for the tool tests: a recording permission/patch/progress sink."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.core.messages import FileChange
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion, ToolResult


@dataclass
class Recorder:
    calls: list[tuple[str, list[str], str, dict[str, Any]]] = field(default_factory=list)
    reject: set[str] = field(default_factory=set)
    """Permissions to refuse, as a user clicking Reject would."""
    patches: list[FileChange] = field(default_factory=list)
    progress: list[tuple[str | None, dict[str, Any]]] = field(default_factory=list)

    async def ask(self, question: PermissionQuestion) -> None:
        q = question
        self.calls.append((q.permission, q.patterns, q.title, q.metadata))
        if q.permission in self.reject:
            raise PermissionDenied(f"The user rejected {q.permission}")

    def asked(self, permission: str) -> list[list[str]]:
        """The patterns of every ask for ``permission``, in order."""
        return [c[1] for c in self.calls if c[0] == permission]


Call = Callable[..., Awaitable[ToolResult]]
