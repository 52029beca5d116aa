"""``glob``: files matching a pattern, newest first."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import is_ignored, relative

LIMIT = 100


class GlobArgs(BaseModel):
    pattern: str = Field(description='The glob pattern, e.g. "**/*.py" or "data/*.csv"')
    path: str | None = Field(default=None, description="The folder to search in (default: working directory)")


class GlobTool(Tool[GlobArgs]):
    name = "glob"
    description = describe("glob")
    Args = GlobArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.pattern]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        base = ctx.resolve(args.path)
        await ctx.check_path(base, "Search")
        if not base.is_dir():
            raise ToolError(f"Not a folder: {base}")
        found = [p for p in base.glob(args.pattern) if p.is_file() and not is_ignored(p, base)]
        found.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        shown = found[:LIMIT]
        lines = [relative(p, ctx.working_dir) for p in shown]
        if not lines:
            return ToolResult(output="No files found", title=args.pattern)
        if len(found) > LIMIT:
            lines.append(f"\n(Showing {LIMIT} of {len(found)} files; use a more specific pattern or path.)")
        return ToolResult(output="\n".join(lines), title=args.pattern, metadata={"count": len(found)})
