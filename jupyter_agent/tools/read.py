"""``read``: a file's lines, numbered, in pages; images and PDFs come back as attachments."""

from __future__ import annotations

import base64
import difflib
import mimetypes
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import Attachment
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import is_binary, relative

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MEDIA = {"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"}


class ReadArgs(BaseModel):
    filePath: str = Field(description="The path of the file to read (absolute or relative to the working directory)")
    offset: int | None = Field(default=None, description="The line number to start reading from (0-based)")
    limit: int | None = Field(default=None, description="The number of lines to read (defaults to 2000)")


class ReadTool(Tool[ReadArgs]):
    name = "read"
    description = describe("read")
    Args = ReadArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.filePath)
        await ctx.check_path(path, "Read")
        await ctx.permit("read", [relative(path, ctx.project_root)], f"Read {args.filePath}")
        if path.is_dir():
            raise ToolError(f"{path} is a directory. Use the list tool to see its contents.")
        if not path.exists():
            siblings = [p.name for p in path.parent.iterdir()] if path.parent.is_dir() else []
            close = difflib.get_close_matches(path.name, siblings, n=3, cutoff=0.4)
            hint = f" Did you mean: {', '.join(str(path.parent / c) for c in close)}?" if close else ""
            raise ToolError(f"File not found: {path}.{hint}")
        mime = mimetypes.guess_type(path.name)[0] or ""
        if mime in MEDIA:
            data = base64.b64encode(path.read_bytes()).decode()
            kind = "PDF" if mime == "application/pdf" else "Image"
            return ToolResult(
                output=f"{kind} read successfully",
                title=relative(path, ctx.project_root),
                attachments=[Attachment(mime=mime, url=f"data:{mime};base64,{data}", filename=path.name)],
            )
        if is_binary(path):
            raise ToolError(f"Cannot read binary file: {path}")
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        offset = max(0, args.offset or 0)
        limit = args.limit or DEFAULT_LIMIT
        page = lines[offset : offset + limit]
        numbered = []
        for i, line in enumerate(page, start=offset + 1):
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + "..."
            numbered.append(f"{i:05d}| {line}")
        end = offset + len(page)
        if end < len(lines):
            footer = f"(File has more lines. Use 'offset' parameter to read beyond line {end})"
        else:
            footer = f"(End of file - total {len(lines)} lines)"
        output = "<file>\n" + "\n".join(numbered) + f"\n\n{footer}\n</file>"
        return ToolResult(
            output=output,
            title=relative(path, ctx.project_root),
            metadata={"lines": len(page), "total": len(lines)},
        )
