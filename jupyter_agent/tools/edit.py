"""``edit``: exact string replacement, with OpenCode-style fallbacks for whitespace drift."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import relative
from jupyter_agent.tools.write import snapshot


class EditArgs(BaseModel):
    filePath: str = Field(description="The path of the file to modify")
    oldString: str = Field(description="The exact text to replace")
    newString: str = Field(description="The text to replace it with (must differ from oldString)")
    replaceAll: bool = Field(default=False, description="Replace every occurrence of oldString")


def _line_trimmed(content: str, find: str) -> Iterator[str]:
    """Blocks of ``content`` equal to ``find`` line by line after stripping each line."""
    lines = content.split("\n")
    wanted = [line.strip() for line in find.split("\n")]
    if wanted and wanted[-1] == "":
        wanted.pop()
    n = len(wanted)
    if n == 0:
        return
    for i in range(len(lines) - n + 1):
        if [line.strip() for line in lines[i : i + n]] == wanted:
            yield "\n".join(lines[i : i + n])


def _whitespace_normalised(content: str, find: str) -> Iterator[str]:
    norm = " ".join(find.split())
    lines = content.split("\n")
    n = find.count("\n") + 1
    for i in range(len(lines) - n + 1):
        block = "\n".join(lines[i : i + n])
        if " ".join(block.split()) == norm:
            yield block


def find_matches(content: str, old: str) -> tuple[str, int]:
    """The text to replace and how often it occurs; exact first, then the fallbacks."""
    if old in content:
        return old, content.count(old)
    for strategy in (_line_trimmed, _whitespace_normalised):
        found = list(dict.fromkeys(strategy(content, old)))
        if found:
            return found[0], content.count(found[0])
    return old, 0


class EditTool(Tool[EditArgs]):
    name = "edit"
    description = describe("edit")
    Args = EditArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        if args.oldString == args.newString:
            raise ToolError("oldString and newString are identical; nothing to change.")
        path = ctx.resolve(args.filePath)
        await ctx.check_path(path, "Edit")
        rel = relative(path, ctx.project_root)
        await ctx.permit("edit", [rel], f"Edit {rel}")
        if not path.exists():
            if args.oldString == "":
                if ctx.on_patch is not None:
                    ctx.on_patch([snapshot(path, args.newString)])
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(args.newString, encoding="utf-8")
                return ToolResult(output=f"Created {rel}.", title=rel)
            raise ToolError(f"File not found: {path}. Use write to create it.")
        if path.is_dir():
            raise ToolError(f"{path} is a directory.")
        content = path.read_text(encoding="utf-8")
        if args.oldString == "":
            raise ToolError("oldString is empty; give the exact text to replace (or use write).")
        target, count = find_matches(content, args.oldString)
        if count == 0:
            raise ToolError(
                f"oldString not found in {rel}. Read the file again and copy the exact text, "
                "including indentation."
            )
        if count > 1 and not args.replaceAll:
            raise ToolError(
                f"Found {count} matches for oldString in {rel}; add more surrounding context to "
                "make it unique, or set replaceAll to true."
            )
        updated = content.replace(target, args.newString) if args.replaceAll else content.replace(target, args.newString, 1)
        if ctx.on_patch is not None:
            ctx.on_patch([snapshot(path, updated)])
        path.write_text(updated, encoding="utf-8")
        diff = "".join(
            difflib.unified_diff(
                content.splitlines(keepends=True), updated.splitlines(keepends=True), f"a/{rel}", f"b/{rel}"
            )
        )
        replaced = count if args.replaceAll else 1
        return ToolResult(
            output=f"Edited {rel}: replaced {replaced} occurrence(s).",
            title=rel,
            metadata={"diff": diff, "replacements": replaced},
        )
