"""MCP tools as our tools: ``<server>_<tool>``, the server's JSON schema, permission "ask".

Results become a tool result like any other: text (truncated by the runner), images as
attachments (inline or the synthetic user message, per provider), ``isError`` results
and dead connections as tool errors the model can read.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict

from jupyter_agent.core.messages import Attachment
from jupyter_agent.mcp.manager import McpCallError, McpManager
from jupyter_agent.mcp.transport import ToolInfo
from jupyter_agent.tools.base import (
    PermissionDenied,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    refuse_on_error,
)
from jupyter_agent.tools.registry import ToolRegistry

MAX_NAME = 64
MEDIA = ("image/", "application/pdf")
PROGRESS_INTERVAL = 0.1
"""Seconds between two progress updates of a tool card (a server may report thousands)."""


class McpArgs(BaseModel):
    """Any JSON object: the server validates its own arguments."""

    model_config = ConfigDict(extra="allow")


class McpTool(Tool[McpArgs]):
    """One tool of one server; subclassed per tool by :func:`make_tool`."""

    Args = McpArgs
    server: str
    remote_name: str
    schema: dict[str, Any]
    manager: McpManager
    read_only: bool = False
    destructive: bool = False

    def parameters(self) -> dict[str, Any]:
        schema = {k: v for k, v in self.schema.items() if k not in ("$schema", "title")}
        schema["type"] = "object"
        schema.setdefault("properties", {})
        return schema

    def permission_patterns(self, args: Any) -> list[str]:
        return [self.name]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        arguments = dict(args.model_extra or {})
        title = f"{self.server} · {self.remote_name}"
        await guard_paths(ctx, arguments, writes=not self.read_only)
        if not self.read_only:  # read-only agents (plan) deny this guard; only agent.<name> rules lift it
            await ctx.permit(
                "mcp_write",
                [self.name],
                f"Call MCP tool {title}",
                default="allow",
                reason="its server does not mark it read-only (readOnlyHint)",
            )
        # MCP tools ask unless a rule names them ("docs_search" or "docs_*"); "*" does not count.
        # One its server marks destructive asks unless a rule names it exactly.
        destructive = "its server marks it destructive (destructiveHint)" if self.destructive else None
        await ctx.permit(
            self.name,
            [self.name],
            f"Call MCP tool {title}",
            default="ask",
            exact=self.destructive,
            reason=destructive,
        )
        try:
            result = await self.manager.call(self.server, self.remote_name, arguments, _Progress(ctx))
        except McpCallError as exc:
            raise ToolError(str(exc)) from None
        return to_result(result, self.server, self.remote_name, title)


PATH_KEYS = ("path", "file", "dir", "dest", "src", "source", "target", "uri", "location")
"""Argument names that hold a path (``path``, ``filePath``, ``destination``, ``paths`` …)."""


def _paths(arguments: dict[str, Any], depth: int = 0) -> list[str]:
    """Path-named arguments, also inside nested objects (``{"edits": [{"path": …}]}``)."""
    found: list[str] = []
    for key, value in arguments.items():
        items = value if isinstance(value, list) else [value]
        if depth < 8:
            for item in items:
                if isinstance(item, dict):
                    found += _paths(item, depth + 1)
        if not any(k in key.lower() for k in PATH_KEYS):
            continue
        for item in items:
            if isinstance(item, str) and item and "\n" not in item and len(item) < 4096:
                found.append(item.removeprefix("file://"))
    return found


async def guard_paths(ctx: ToolContext, arguments: dict[str, Any], writes: bool) -> None:
    """Paths an MCP tool is given: a hidden credential store is refused, a protected path
    asks before a tool that may write (the same rules as the file tools). A scan that raises
    refuses the call (``refuse_on_error``)."""
    with refuse_on_error("the tool's arguments"):
        await _guard_paths(ctx, arguments, writes)


async def _guard_paths(ctx: ToolContext, arguments: dict[str, Any], writes: bool) -> None:
    for text in _paths(arguments):
        path = ctx.resolve(text)
        hidden = ctx.services.guard.hides(path)
        if hidden is not None:
            raise PermissionDenied(
                f"Access to {path} is denied: {hidden} holds credentials and is hidden from the agent "
                "(sandbox.deny_read)."
            )
        why = ctx.services.guard.protects(path, ctx.project_root, ctx.working_dir) if writes else None
        if why is not None:
            await ctx.permit(
                "protected", [str(path)], f"MCP write to {path} ({why})", always_ask=True, reason=why
            )


class _Progress:
    """The server's progress into the running tool card: handed over from the servers' thread
    to the run's loop, at most one update per :data:`PROGRESS_INTERVAL` (the latest wins)."""

    def __init__(self, ctx: ToolContext) -> None:
        self.ctx = ctx
        self.loop = asyncio.get_running_loop()
        self.latest: dict[str, Any] | None = None
        self.lock = threading.Lock()

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if not isinstance(progress, (int, float)) or not math.isfinite(progress):
            return  # a misbehaving server: nothing sensible to show
        with self.lock:
            pending = self.latest is not None
            self.latest = progress_view(progress, total, message)
        if not pending:
            self.loop.call_soon_threadsafe(self.loop.call_later, PROGRESS_INTERVAL, self.show)

    def show(self) -> None:
        with self.lock:
            shown, self.latest = self.latest, None
        if shown is not None:
            self.ctx.progress(None, progress=shown)


def progress_view(progress: float, total: float | None, message: str | None) -> dict[str, Any]:
    """What the tool card shows: the fraction done when the server says a total, the message."""
    view: dict[str, Any] = {"progress": progress}
    if isinstance(total, (int, float)) and math.isfinite(total) and total > 0:
        view["total"] = total
        view["fraction"] = max(0.0, min(1.0, progress / total))
    if message:
        view["message"] = message[:200]
    return view


def exposed_name(server: str, tool: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}_{tool}")[:MAX_NAME]


def make_tool(manager: McpManager, server: str, info: ToolInfo, name: str | None = None) -> McpTool:
    attrs = {
        "name": name or exposed_name(server, info.name),
        "description": info.description or f"Tool '{info.name}' of the MCP server '{server}'.",
        "server": server,
        "remote_name": info.name,
        "schema": info.input_schema,
        "manager": manager,
        "read_only": info.read_only,
        "destructive": info.destructive,
    }
    cls = type(f"McpTool_{attrs['name']}", (McpTool,), attrs)
    return cls()


def to_result(result: Any, server: str, tool: str, title: str) -> ToolResult:
    texts: list[str] = []
    attachments: list[Attachment] = []
    for i, block in enumerate(result.content or []):
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind in ("image", "audio"):
            if block.mime_type.startswith(MEDIA):
                attachments.append(_attachment(block.mime_type, block.data, f"{tool}-{i + 1}"))
                texts.append(f"[{block.mime_type} attached]")
            else:
                texts.append(f"[{kind} {block.mime_type} omitted]")
        elif kind == "resource":
            res = block.resource
            mime = getattr(res, "mime_type", None) or "application/octet-stream"
            if getattr(res, "text", None) is not None:
                texts.append(res.text)
            elif mime.startswith(MEDIA):
                attachments.append(_attachment(mime, res.blob, str(res.uri).rsplit("/", 1)[-1]))
                texts.append(f"[{mime} attached: {res.uri}]")
            else:
                texts.append(f"[resource {res.uri} ({mime}) omitted]")
        elif kind == "resource_link":
            texts.append(f"[resource: {block.uri}]")
    if not texts and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, indent=2, default=str))
    output = "\n".join(texts)
    if result.is_error:
        raise ToolError(f"MCP tool {server}.{tool} failed: {output or 'no details'}")
    return ToolResult(
        output=output or "(no output)",
        title=title,
        metadata={"mcp_server": server, "mcp_tool": tool},
        attachments=attachments,
    )


def _attachment(mime: str, data: str, stem: str) -> Attachment:
    ext = mime.split("/", 1)[-1].split("+", 1)[0]
    return Attachment(mime=mime, url=f"data:{mime};base64,{data}", filename=f"{stem}.{ext}")


def sync_tools(registry: ToolRegistry, manager: McpManager) -> list[str]:
    """Register the tools of connected servers, drop those of failed ones; returns notices."""
    notices: list[str] = []
    wanted: dict[str, McpTool] = {}

    def taken(name: str) -> bool:
        return name in wanted or (name in registry and not isinstance(registry.get(name), McpTool))

    for status in manager.servers.values():
        if status.state != "connected":
            continue
        for info in status.tools:
            tool = make_tool(manager, status.name, info)
            if info.problem:
                if tool.name not in manager.reported:
                    manager.reported.add(tool.name)
                    notices.append(f"MCP tool '{info.name}' of '{status.name}' left out: {info.problem}.")
                continue
            if taken(tool.name):
                # renamed, never shadowing: a built-in (notebook + edit = notebook_edit) stays ours
                by = "another MCP tool" if tool.name in wanted else "a built-in tool"
                name = next(n for k in range(2, 10_000) if not taken(n := f"{tool.name[: MAX_NAME - 6]}_{k}"))
                if f"{status.name}/{info.name}" not in manager.reported:
                    manager.reported.add(f"{status.name}/{info.name}")
                    notices.append(
                        f"MCP tool '{info.name}' of '{status.name}' is offered as {name}: "
                        f"{tool.name} is taken by {by}."
                    )
                tool = make_tool(manager, status.name, info, name)
            wanted[tool.name] = tool
    for name in [t.name for t in registry if isinstance(t, McpTool) and t.name not in wanted]:
        registry.unregister(name)
    for name, tool in wanted.items():
        current = registry.get(name) if name in registry else None
        if not (
            isinstance(current, McpTool)
            and current.manager is manager
            and current.schema == tool.schema
            and (current.read_only, current.destructive) == (tool.read_only, tool.destructive)
        ):
            registry.register(tool)
    return notices


async def attach(runtime: Any) -> None:
    """Start the runtime's MCP servers (first call only) and sync its registry with them."""
    manager = runtime.services.mcp
    if manager is None:
        manager = runtime.services.mcp = McpManager(runtime.config.mcp, runtime.working_dir)
    runtime.notices.extend(await manager.start())
    await manager.check()  # a server that died since the last prompt: reported, tools left out
    runtime.notices.extend(manager.take_notices())
    runtime.notices.extend(sync_tools(runtime.registry, manager))
