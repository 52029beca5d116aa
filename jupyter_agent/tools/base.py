"""What every tool is: a name, a description, a pydantic argument model, and ``run``.

Argument names follow OpenCode (``filePath``, ``oldString`` …) so prompts, skills and
instructions written for it carry over. Tools never talk to the UI or the store directly:
they get a :class:`ToolContext` that asks permission, reports progress and records patches.
"""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel

from jupyter_agent.context.truncate import MAX_BYTES, MAX_LINES, MAX_SAVED_BYTES
from jupyter_agent.core.messages import Attachment, FileChange
from jupyter_agent.tools.services import Services

Args = TypeVar("Args", bound=BaseModel)


class ToolError(Exception):
    """A failure the model should read and can act on (bad path, no match, timeout)."""


class PermissionDenied(ToolError):
    """The user (or config) rejected this call; the message says how to allow it."""


@dataclass(frozen=True)
class OutputLimits:
    """How much of a tool's output the model sees and the disk keeps (``tool_output``)."""

    max_lines: int = MAX_LINES
    max_bytes: int = MAX_BYTES
    max_saved_bytes: int = MAX_SAVED_BYTES


@dataclass(frozen=True)
class SavedOutput:
    """A tool streamed its whole output to a file and kept only its ends in ``output``."""

    path: str | None
    """The file, or None when it could not be written (``error`` says why)."""
    total_bytes: int
    """Of the whole output (what the model's preview is cut from)."""
    total_lines: int
    error: str | None = None


@dataclass
class ToolResult:
    output: str
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    """``truncated: True`` tells the truncation step the tool already cut its output."""
    attachments: list[Attachment] = field(default_factory=list)
    truncate_direction: Literal["head", "tail"] = "head"
    """Which end survives truncation: ``bash`` keeps the tail, where results and errors are."""
    saved: SavedOutput | None = None
    """Set when the output was too long to keep: ``output`` holds its ends only."""


Action = Literal["allow", "ask", "deny"]


@dataclass
class PermissionQuestion:
    """What a tool asks the permission layer about one call."""

    permission: str
    patterns: list[str]
    """What the rules match (a command, a path); ``[]`` matches the permission's plain rule."""
    title: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Shown with the question (the diff of an edit, the command …)."""
    default: Action | None = None
    """The action when no rule names the permission (MCP tools: "ask"); else the ``"*"`` rule."""
    unsure: str | None = None
    """Why the call cannot be judged (an unparseable command): only a plain "allow" lets it run."""


AskFn = Callable[[PermissionQuestion], Awaitable[None]]
"""``ask(question)``: returns when allowed, raises PermissionDenied."""


@dataclass
class ToolContext:
    """Everything a running tool may use; built by the loop for each call."""

    session_id: str
    message_id: str
    call_id: str
    agent: str
    project_root: Path
    """Paths outside it need the ``external_directory`` permission."""
    working_dir: Path
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    ask: AskFn | None = None
    on_metadata: Callable[[str | None, dict[str, Any]], None] | None = None
    """Live progress: update the running tool part's title/metadata (streamed to UIs)."""
    on_patch: Callable[[list[FileChange]], None] | None = None
    """Record files as they were before a write, for revert."""
    services: Services = field(default_factory=Services)
    """The runtime's adapters: the kernel shell for ``python``, the notebook bridge, sub-agents …"""
    limits: OutputLimits = field(default_factory=OutputLimits)
    new_output_file: Callable[[], Path] | None = None
    """A fresh file under ``tool-output/`` for output too long to keep in memory."""

    async def permit(
        self,
        permission: str,
        patterns: list[str],
        title: str = "",
        *,
        default: Action | None = None,
        unsure: str | None = None,
        **metadata: Any,
    ) -> None:
        """Ask the permission layer; headless/no-UI contexts allow unless rules deny."""
        if self.ask is not None:
            await self.ask(PermissionQuestion(permission, patterns, title, metadata, default, unsure))

    def rule(self, permission: str, value: str) -> str:
        """What the rules say for one value, without asking: search tools drop files the
        ``read`` rules hide (``allow``/``ask``/``deny``; "allow" when nothing is wired)."""
        check = self.services.permission_rule
        return str(check(self.agent, permission, value, self.session_id)) if check is not None else "allow"

    def progress(self, title: str | None = None, **metadata: Any) -> None:
        if self.on_metadata is not None:
            self.on_metadata(title, metadata)

    def resolve(self, path: str | None) -> Path:
        """An absolute path for a tool argument, relative ones taken from the working dir."""
        if not path:
            return self.working_dir
        p = Path(path).expanduser()
        return (p if p.is_absolute() else self.working_dir / p).resolve()

    def is_external(self, path: Path) -> bool:
        root = self.project_root.resolve()
        resolved = path.resolve()
        return resolved != root and root not in resolved.parents

    async def check_path(self, path: Path, action: str) -> None:
        """Ask ``external_directory`` before touching anything outside the project root."""
        if self.is_external(path):
            parent = path if path.is_dir() else path.parent
            await self.permit(
                "external_directory",
                [str(parent / "*")],
                f"{action} outside the project: {path}",
                path=str(path),
            )


class Tool(Generic[Args]):
    """Subclass with ``name``, ``description``, ``Args`` and an async ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: type[BaseModel]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def parameters(self) -> dict[str, Any]:
        """The JSON schema the model sees for the arguments (a copy: callers may edit it)."""
        return copy.deepcopy(_schema(self.Args))

    def spec(self) -> dict[str, Any]:
        """The OpenAI-style function spec litellm forwards to every provider."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters(),
            },
        }

    def permission_patterns(self, args: Any) -> list[str]:
        """What the permission rules match this call against (a command, a path)."""
        return ["*"]


@functools.cache
def _schema(args: type[BaseModel]) -> dict[str, Any]:
    """pydantic builds a schema in ~50 ms; every request needs every tool's, so build each once."""
    schema = args.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    return schema
