"""``write``: create or overwrite a file, recording what was there for revert.

The previous content is handed to ``ctx.on_patch`` *before* the write, so a crash or a
failed write can never leave a change without its undo record.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import FileChange
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.diffs import unified_diff
from jupyter_agent.tools.paths import relative
from jupyter_agent.tools.read import refuse_special

MAX_DIFF_SOURCE = 1024 * 1024
"""A larger file's approval says what is replaced instead of a diff."""


class WriteArgs(BaseModel):
    filePath: str = Field(
        description="The path of the file to write (absolute, or relative to the working directory)"
    )
    content: str = Field(description="The complete content to write to the file")


def snapshot(path: Path, after: str | None) -> FileChange:
    """The file as it is now (``None`` when absent; base64 when not UTF-8), for revert."""
    if not path.exists():
        return FileChange(path=str(path), before=None, after=after)
    raw = path.read_bytes()
    try:
        return FileChange(path=str(path), before=raw.decode("utf-8"), after=after)
    except UnicodeDecodeError:
        encoded = base64.b64encode(raw).decode()
        return FileChange(path=str(path), before=encoded, after=after, binary=True)


def record_and_write(ctx: ToolContext, path: Path, content: str) -> None:
    """Record the old content, then write the new one (parents created as needed)."""
    if ctx.on_patch is not None:
        ctx.on_patch([snapshot(path, content)])
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as fh:
        fh.write(content)


def _diff(path: Path, content: str, rel: str) -> str:
    """What the approval shows: the file's change as a diff (a new file: all of it added)."""
    before = ""
    if path.is_file():
        if path.stat().st_size > MAX_DIFF_SOURCE:
            return f"(replaces {rel}, {path.stat().st_size:,} bytes, with {count_lines(content)} lines)\n"
        try:
            before = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return f"(replaces {rel}, not a UTF-8 text file, with {count_lines(content)} lines)\n"
    return unified_diff(before, content, rel)


def count_lines(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


class WriteTool(Tool[WriteArgs]):
    name = "write"
    description = describe("write")
    Args = WriteArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.filePath)
        await ctx.check_write(path, "Write")
        rel = relative(path, ctx.project_root)
        if path.is_dir():
            raise ToolError(f"{path} is a directory; give the path of a file inside it.")
        diff = _diff(path, args.content, rel)
        await ctx.permit("edit", [rel], f"Write {rel}", filepath=str(path), diff=diff)
        existed = path.exists()
        if existed:
            refuse_special(path)  # opening a FIFO to write blocks until someone reads it
        record_and_write(ctx, path, args.content)
        verb = "Overwrote" if existed else "Created"
        lines = count_lines(args.content)
        return ToolResult(
            output=f"{verb} {rel} ({lines} lines).",
            title=rel,
            metadata={"filepath": str(path), "existed": existed, "lines": lines},
        )
