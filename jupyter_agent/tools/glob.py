"""``glob``: files whose path matches a pattern, newest first.

Patterns are matched against the path relative to the search folder: ``*.py`` stays in
that folder, ``**/*.py`` recurses, ``*.{ts,tsx}`` expands braces. The walk runs in a
thread so a big tree does not freeze the kernel's event loop.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import glob_regex, relative, walk_files
from jupyter_agent.tools.withheld import hider, note

LIMIT = 100


class GlobArgs(BaseModel):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py"')
    path: str | None = Field(
        default=None,
        description="The directory to search in (default: the working directory). "
        "Omit it to use the default; do not pass 'undefined' or 'null'.",
    )


def find_files(base: Path, pattern: str) -> list[tuple[float, Path]]:
    """Matching files with their mtimes, newest first."""
    regex = glob_regex(pattern)
    found: list[tuple[float, Path]] = []
    for path, rel in walk_files(base):
        if regex.match(rel):
            try:
                found.append((path.stat().st_mtime, path))
            except OSError:
                continue  # a dangling symlink
    found.sort(key=lambda item: (-item[0], str(item[1])))
    return found


class GlobTool(Tool[GlobArgs]):
    name = "glob"
    description = describe("glob")
    Args = GlobArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.pattern]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        if Path(args.pattern).is_absolute():
            raise ToolError("pattern must be relative (e.g. '**/*.csv'); pass the folder to search as path.")
        base = ctx.resolve(args.path if args.path not in ("undefined", "null") else None)
        await ctx.check_path(base, "Search")
        if not base.is_dir():
            raise ToolError(f"Not a directory: {base}. Give a folder as path.")
        await ctx.permit("glob", [args.pattern], f"Glob {args.pattern}")
        found = await asyncio.to_thread(find_files, base, args.pattern)
        hidden = hider(ctx)  # ~20 µs a file: a big tree is filtered off the event loop too
        shown = await asyncio.to_thread(lambda: [item for item in found if not hidden(item[1])])
        withheld, found = len(found) - len(shown), shown
        title = relative(base, ctx.project_root)
        if not found:
            return ToolResult(output="No files found" + note(withheld), title=title, metadata={"count": 0})
        lines = [relative(p, ctx.working_dir) for _, p in found[:LIMIT]]
        cut = len(found) > LIMIT
        if cut:
            lines += [
                "",
                f"(Results are truncated: showing the {LIMIT} newest of {len(found)} files. "
                "Use a more specific pattern or path.)",
            ]
        meta: dict[str, Any] = {"count": len(found), "limit_reached": cut}
        if withheld:
            meta["withheld"] = withheld
        return ToolResult(output="\n".join(lines) + note(withheld), title=title, metadata=meta)
