"""``list``: a folder as a tree, folders first, skipping clutter."""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import IGNORED_DIRS

LIMIT = 100


class ListArgs(BaseModel):
    path: str | None = Field(default=None, description="The folder to list (default: working directory)")
    ignore: list[str] | None = Field(default=None, description="Glob patterns of names to skip")


class ListTool(Tool[ListArgs]):
    name = "list"
    description = describe("list")
    Args = ListArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        base = ctx.resolve(args.path)
        await ctx.check_path(base, "List")
        if not base.is_dir():
            raise ToolError(f"Not a folder: {base}")
        ignore = list(args.ignore or [])
        lines: list[str] = [f"{base}/"]
        count = 0

        def walk(folder: Path, depth: int) -> None:
            nonlocal count
            try:
                entries = sorted(folder.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower()))
            except OSError:
                return
            for entry in entries:
                if entry.name in IGNORED_DIRS or any(fnmatch(entry.name, g) for g in ignore):
                    continue
                if count >= LIMIT:
                    return
                count += 1
                indent = "  " * depth
                if entry.is_dir():
                    lines.append(f"{indent}{entry.name}/")
                    walk(entry, depth + 1)
                else:
                    lines.append(f"{indent}{entry.name}")

        walk(base, 1)
        if count >= LIMIT:
            lines.append(f"\n(Showing the first {LIMIT} entries; list a subfolder to see more.)")
        return ToolResult(output="\n".join(lines), title=str(base), metadata={"count": count})
