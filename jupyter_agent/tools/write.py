"""``write``: create or overwrite a file, recording what was there for revert."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import FileChange
from jupyter_agent.tools.base import Tool, ToolContext, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import relative


class WriteArgs(BaseModel):
    filePath: str = Field(description="The path of the file to write (absolute or relative)")
    content: str = Field(description="The full content to write to the file")


def snapshot(path: Path, after: str | None) -> FileChange:
    """The file as it is now (None when absent; base64 when binary), for revert."""
    if not path.exists():
        return FileChange(path=str(path), before=None, after=after)
    raw = path.read_bytes()
    try:
        return FileChange(path=str(path), before=raw.decode("utf-8"), after=after)
    except UnicodeDecodeError:
        return FileChange(path=str(path), before=base64.b64encode(raw).decode(), after=after, binary=True)


class WriteTool(Tool[WriteArgs]):
    name = "write"
    description = describe("write")
    Args = WriteArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.filePath)
        await ctx.check_path(path, "Write")
        rel = relative(path, ctx.project_root)
        await ctx.permit("edit", [rel], f"Write {rel}")
        if path.is_dir():
            from jupyter_agent.tools.base import ToolError

            raise ToolError(f"{path} is a directory; give a file path.")
        existed = path.exists()
        if ctx.on_patch is not None:
            ctx.on_patch([snapshot(path, args.content)])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args.content, encoding="utf-8")
        verb = "Overwrote" if existed else "Created"
        lines = args.content.count("\n") + (0 if args.content.endswith("\n") or not args.content else 1)
        return ToolResult(output=f"{verb} {rel} ({lines} lines).", title=rel, metadata={"existed": existed})
