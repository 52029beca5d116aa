"""``list``: a folder as an indented tree, folders first, skipping clutter.

Entries are picked breadth-first and then drawn as a tree, so with the 100-entry cap the
top level is always complete and one deep folder cannot hide its siblings.
"""

from __future__ import annotations

import asyncio
import os
from collections import deque
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import LIST_IGNORES, relative
from jupyter_agent.tools.withheld import hider, note

LIMIT = 100


class ListArgs(BaseModel):
    path: str | None = Field(
        default=None,
        description="The directory to list (absolute, or relative to the working directory; "
        "default: the working directory)",
    )
    ignore: list[str] | None = Field(
        default=None,
        description='Glob patterns of names or paths to skip, e.g. ["*.log", "data/raw"]',
    )


def _children(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return []
    return sorted(entries, key=lambda e: (not _is_dir(e), e.name.lower()))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def build_tree(
    base: Path, ignore: list[str], limit: int = LIMIT, hidden: Callable[[Path], bool] | None = None
) -> tuple[list[str], int, bool, int]:
    """Tree lines under ``base``, the number of entries shown, whether the cap was hit, and
    how many files ``hidden`` (the ``read`` rules) withheld."""
    picked: dict[Path, list[tuple[str, bool]]] = {}
    queue: deque[Path] = deque([base])
    count, capped, withheld = 0, False, 0
    while queue and not capped:
        folder = queue.popleft()
        for entry in _children(folder):
            rel = relative(Path(entry.path), base)
            if entry.name in LIST_IGNORES or any(
                fnmatchcase(entry.name, g) or fnmatchcase(rel, g) for g in ignore
            ):
                continue
            is_dir = _is_dir(entry)
            if not is_dir and hidden is not None and hidden(Path(entry.path)):
                withheld += 1
                continue
            if count >= limit:
                capped = True
                break
            picked.setdefault(folder, []).append((entry.name, is_dir))
            count += 1
            if is_dir:
                queue.append(Path(entry.path))

    lines: list[str] = []

    def draw(folder: Path, depth: int) -> None:
        for name, is_dir in picked.get(folder, []):
            lines.append("  " * depth + name + ("/" if is_dir else ""))
            if is_dir:
                draw(folder / name, depth + 1)

    draw(base, 1)
    return lines, count, capped, withheld


class ListTool(Tool[ListArgs]):
    name = "list"
    mutates = False
    description = describe("list")
    Args = ListArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.path or "."]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        base = ctx.resolve(args.path)
        await ctx.check_path(base, "List")
        if not base.is_dir():
            hint = " It is a file: use read." if base.is_file() else ""
            raise ToolError(f"Not a directory: {base}.{hint}")
        title = relative(base, ctx.project_root)
        await ctx.permit("list", [title], f"List {title}")
        lines, count, capped, withheld = await asyncio.to_thread(
            build_tree, base, list(args.ignore or []), LIMIT, hider(ctx)
        )
        output = "\n".join([f"{base}/", *lines])
        if capped:
            output += (
                f"\n\n(Showing the first {LIMIT} entries, breadth-first; folders may hold more. "
                "List a subfolder or use glob to see the rest.)"
            )
        meta: dict[str, Any] = {"count": count, "limit_reached": capped}
        if withheld:
            meta["withheld"] = withheld
        return ToolResult(output=output + note(withheld), title=title, metadata=meta)
