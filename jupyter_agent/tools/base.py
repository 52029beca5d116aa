"""What every tool is: a name, a description, a pydantic argument model, and ``run``.

Argument names follow OpenCode (``filePath``, ``oldString`` …) so prompts, skills and
instructions written for it carry over. Tools never talk to the UI or the store directly:
they get a :class:`ToolContext` that asks permission, reports progress and records patches.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import errno
import functools
import logging
import os
import stat
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel

from jupyter_agent.context.truncate import MAX_BYTES, MAX_LINES, MAX_SAVED_BYTES
from jupyter_agent.core.chat import ToolSpec
from jupyter_agent.core.messages import Attachment, FileChange
from jupyter_agent.tools.services import Services

Args = TypeVar("Args", bound=BaseModel)
log = logging.getLogger(__name__)
NAME_MAX = 255
"""The longest file name Linux and macOS file systems take, in bytes."""


class ToolError(Exception):
    """A failure the model should read and can act on (bad path, no match, timeout).

    Never reaches a front end: the tool runner makes it the call's error result
    (``agent/tool_runner.py``); the side panel's "Add as cell" words the notebook bridge's
    itself (``ui/panel_repro.py``)."""


class PermissionDenied(ToolError):
    """The user (or config) rejected this call; the message says how to allow it."""


class CheckFailed(PermissionDenied):
    """A rule check raised: a bug in jupyter-agent, logged; the call is refused, never run."""


@contextlib.contextmanager
def refuse_on_error(what: str) -> Iterator[None]:
    """Around a rule check: an exception in it refuses the call with one line (and is logged
    with ``what``), instead of reaching the model as a traceback or letting the call through."""
    try:
        yield
    except (ToolError, asyncio.CancelledError, KeyboardInterrupt):
        raise
    except Exception as exc:
        log.error("A permission check failed on %s", what, exc_info=True)
        raise CheckFailed(
            f"Refused: the permission check could not read {what} ({type(exc).__name__}, an internal "
            "error, logged). Nothing was run. Try a plainer form, or ask the user to do it."
        ) from None


def _path_problem(text: str, exc: Exception) -> str:
    """Why a path argument cannot be used, in words the model can act on."""
    if isinstance(exc, ValueError):
        return "it contains a NUL byte"
    if isinstance(exc, RuntimeError) and text.startswith("~"):
        return f"{text.split('/', 1)[0]} names no user of this machine"
    if isinstance(exc, RuntimeError):
        return "it leads into a symbolic link loop"
    if isinstance(exc, OSError) and exc.errno == errno.ENAMETOOLONG:
        return f"a name in it is longer than {NAME_MAX} bytes"
    return str(exc)


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
    always_ask: bool = False
    """Asked whatever the rules allow (a protected path); a "deny" still refuses."""
    exact: bool = False
    """Only a rule naming the permission exactly counts (not ``docs_*``): else ``default``."""
    answered: str | None = None
    """Set by the permission layer when the user was asked: their reply (``once``, ``always``)."""


AskFn = Callable[[PermissionQuestion], Awaitable[None]]
"""``ask(question)``: returns when allowed, raises PermissionDenied."""


@dataclass
class CellEdit:
    """A cell a tool changed, as it was and as it is now (nbformat dicts), for revert."""

    notebook: str
    action: Literal["insert", "replace", "delete"]
    cell_id: str
    index: int
    prev_id: str | None
    label: str
    before: dict[str, Any] | None
    after: dict[str, Any] | None


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
    on_cells: Callable[[list[CellEdit]], None] | None = None
    """Record notebook cells the tool changed, for revert."""
    on_code: Callable[[str], None] | None = None
    """Save the kernel variables ``code`` may change, just before it runs (for revert)."""
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
        always_ask: bool = False,
        exact: bool = False,
        **metadata: Any,
    ) -> str | None:
        """Ask the permission layer; headless/no-UI contexts allow unless rules deny.
        Returns the user's reply when they were asked (their approval is a review), else None."""
        if self.ask is None:
            return None
        question = PermissionQuestion(
            permission, patterns, title, metadata, default, unsure, always_ask, exact
        )
        with refuse_on_error(f"the {permission} request for {', '.join(patterns)[:200]}"):
            await self.ask(question)
        return question.answered

    def rule(self, permission: str, value: str, specific: bool = False) -> str:
        """What the rules say for one value, without asking: search tools drop files the
        ``read`` rules hide (``allow``/``ask``/``deny``; "allow" when nothing is wired).
        ``specific``: only a pattern naming something counts (``"rm *"``, not ``"*"``)."""
        check = self.services.permission_rule
        if check is None:
            return "allow"
        if specific:
            return str(check(self.agent, permission, value, self.session_id, specific=True))
        return str(check(self.agent, permission, value, self.session_id))

    def progress(self, title: str | None = None, **metadata: Any) -> None:
        if self.on_metadata is not None:
            self.on_metadata(title, metadata)

    def resolve(self, path: str | None) -> Path:
        """An absolute path for a tool argument, relative ones taken from the working dir."""
        if not path:
            return self.working_dir
        try:
            p = Path(path).expanduser()
            resolved = (p if p.is_absolute() else self.working_dir / p).resolve()
            if any(len(os.fsencode(name)) > NAME_MAX for name in resolved.parts):
                raise OSError(errno.ENAMETOOLONG, "File name too long")
            return resolved
        except (RuntimeError, ValueError, OSError) as exc:
            raise ToolError(f"Cannot use the path {path[:200]!r}: {_path_problem(path, exc)}.") from None

    def is_external(self, path: Path) -> bool:
        root = self.project_root.resolve()
        resolved = path.resolve()
        outputs = self.services.outputs  # a store kept elsewhere: its saved outputs are the run's own
        if outputs is not None and (resolved == outputs or outputs.resolve() in resolved.parents):
            return False
        return resolved != root and root not in resolved.parents

    async def check_path(self, path: Path, action: str) -> None:
        """Refuse a hidden credential store; ask ``external_directory`` before touching
        anything outside the project root."""
        with refuse_on_error(f"the path {str(path)[:200]}"):
            await self._check_path(path, action)

    async def _check_path(self, path: Path, action: str) -> None:
        hidden = self.services.guard.hides(path)
        if hidden is not None:
            raise PermissionDenied(
                f"Access to {path} is denied: {hidden} holds credentials and is hidden from the agent "
                "(sandbox.deny_read). "
                "Ask the user for what you need from it."
            )
        if self.is_external(path):
            parent = path if path.is_dir() else path.parent
            await self.permit(
                "external_directory",
                [str(parent / "*")],
                f"{action} outside the project: {path}",
                path=str(path),
            )

    async def check_write(self, path: Path, action: str) -> None:
        """Before changing a file: ``check_path``, then a protected path always asks
        (``protected``), and a file with other names (hard links) asks ``external_directory``."""
        with refuse_on_error(f"the path {str(path)[:200]}"):
            await self._check_write(path, action)

    async def _check_write(self, path: Path, action: str) -> None:
        await self._check_path(path, action)
        why = self.services.guard.protects(path, self.project_root, self.working_dir)
        if why is not None:
            await self.permit(
                "protected",
                [str(path)],
                f"{action} {path} ({why})",
                always_ask=True,
                reason=why,
                path=str(path),
            )
        with contextlib.suppress(OSError):
            info = path.stat()
            if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                await self.permit(
                    "external_directory",
                    [str(path)],
                    f"{action} {path}: it has {info.st_nlink - 1} other name(s)",
                    reason="this file has other names (hard links); editing it changes them too",
                    path=str(path),
                )


class Tool(Generic[Args]):
    """Subclass with ``name``, ``description``, ``Args`` and an async ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    Args: type[BaseModel]
    mutates: ClassVar[bool] = True
    """May change files, cells or variables: a checkpoint is taken around each call (tools
    that only read say False and cost nothing)."""

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def parameters(self) -> dict[str, Any]:
        """The JSON schema the model sees for the arguments (a copy: callers may edit it)."""
        return copy.deepcopy(_schema(self.Args))

    def spec(self) -> ToolSpec:
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
