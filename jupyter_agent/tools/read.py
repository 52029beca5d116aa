"""``read``: a file's lines, numbered, in pages; images and PDFs come back as attachments.

Output format (OpenCode's classic one): ``<file>`` then one ``00042| text`` line per file
line (number zero-padded to 5 digits, 1-based), a blank line, a footer saying how to read
on or that the end was reached, then ``</file>``. The file is streamed, so reading the
first page of a 2 GB log costs one page. The page is also capped at ``MAX_BYTES`` so the
result fits the per-call output limit; when the tool cut anything it sets
``metadata.truncated`` and the generic truncation step leaves the output alone.
"""

from __future__ import annotations

import base64
import difflib
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import BaseModel, Field

from jupyter_agent.core.messages import Attachment
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import is_binary, relative

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
LINE_BYTES = MAX_LINE_CHARS * 4 + 2
"""Bytes kept of one line: room for ``MAX_LINE_CHARS`` characters of UTF-8 and a newline."""
MAX_BYTES = 50 * 1024
WRAPPER_BYTES = 256
"""Room for ``<file>`` and the footer, so a whole page stays under the runner's byte limit."""
MAX_MEDIA_BYTES = 10 * 1024 * 1024
MEDIA = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
}


class ReadArgs(BaseModel):
    filePath: str = Field(
        description="The path of the file to read (absolute, or relative to the working directory)"
    )
    offset: int | None = Field(
        default=None, ge=0, description="The line number to start reading from (0-based)"
    )
    limit: int | None = Field(
        default=None, ge=1, description="The number of lines to read (defaults to 2000)"
    )


def _suggestions(path: Path) -> list[str]:
    """Up to 3 names in the same folder that look like the one asked for (typos, case)."""
    try:
        names = [p.name for p in path.parent.iterdir()]
    except OSError:
        return []
    wanted = path.name.lower()
    close = [n for n in names if wanted in n.lower() or n.lower() in wanted]
    close += difflib.get_close_matches(path.name, names, n=3, cutoff=0.5)
    return [str(path.parent / n) for n in dict.fromkeys(close)][:3]


def _media(path: Path, mime: str, title: str) -> ToolResult:
    size = path.stat().st_size
    if size > MAX_MEDIA_BYTES:
        raise ToolError(
            f"{path} is {size // 1024 // 1024} MB, too large to attach (max "
            f"{MAX_MEDIA_BYTES // 1024 // 1024} MB). Downscale or split it with the python "
            "tool first."
        )
    data = base64.b64encode(path.read_bytes()).decode()
    kind = "PDF" if mime == "application/pdf" else "Image"
    return ToolResult(
        output=f"{kind} read successfully",
        title=title,
        metadata={"mime": mime, "bytes": size},
        attachments=[Attachment(mime=mime, url=f"data:{mime};base64,{data}", filename=path.name)],
    )


def _lines(fh: BinaryIO) -> Iterator[tuple[bytes, bool]]:
    """Each line's first ``LINE_BYTES`` bytes and whether more followed: a 600 MB line
    costs one small buffer, not 600 MB of text (and twice that decoded)."""
    while True:
        head = fh.readline(LINE_BYTES)
        if not head:
            return
        long = False
        if not head.endswith(b"\n") and len(head) == LINE_BYTES:
            while True:  # skip the rest of the line in bounded chunks
                rest = fh.readline(1 << 20)
                long = long or rest not in (b"\n", b"\r\n")
                if not rest or rest.endswith(b"\n"):
                    break
        yield head, long


def refuse_special(path: Path) -> None:
    """A FIFO, socket or device would block the kernel (or never end): not read."""
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        kind = "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise ToolError(f"{path} is {kind}, not a regular file: reading it could block forever. Not read.")


def read_page(path: Path, offset: int, limit: int) -> tuple[str, dict[str, Any]]:
    """The numbered page and its metadata; streams the file and stops after the page."""
    numbered: list[str] = []
    used = 0
    cut_line = cut_bytes = more = False
    total = 0
    with path.open("rb") as fh:
        for index, (raw, long) in enumerate(_lines(fh)):
            total = index + 1
            if index < offset:
                continue
            if len(numbered) >= limit:
                more = True
                break
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if long or len(line) > MAX_LINE_CHARS:
                line, cut_line = line[:MAX_LINE_CHARS] + "...", True
            entry = f"{index + 1:05d}| {line}"
            size = len(entry.encode("utf-8")) + 1
            if numbered and used + size > MAX_BYTES - WRAPPER_BYTES:
                cut_bytes = more = True
                break
            numbered.append(entry)
            used += size
    if offset and offset >= total:
        raise ToolError(
            f"offset {offset} is beyond the end of the file ({total} lines). "
            "Use a smaller offset, or omit it to read from the start."
        )
    last = offset + len(numbered)
    if cut_bytes:
        footer = f"(Output capped at {MAX_BYTES} bytes. Use 'offset' parameter to read beyond line {last})"
    elif more:
        footer = f"(File has more lines. Use 'offset' parameter to read beyond line {last})"
    else:
        footer = f"(End of file - total {total} lines)"
    output = "<file>\n" + "\n".join(numbered) + f"\n\n{footer}\n</file>"
    meta: dict[str, Any] = {"lines": len(numbered), "offset": offset}
    if not more:
        meta["total"] = total
    if more or cut_line:
        meta["truncated"] = True
    return output, meta


class ReadTool(Tool[ReadArgs]):
    name = "read"
    mutates = False
    description = describe("read")
    Args = ReadArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(args.filePath)
        await ctx.check_path(path, "Read")
        title = relative(path, ctx.project_root)
        await ctx.permit("read", [title], f"Read {title}")
        if path.is_dir():
            raise ToolError(f"{path} is a directory, not a file. Use the list tool to see its contents.")
        if not path.exists():
            close = _suggestions(path)
            hint = " Did you mean one of these?\n" + "\n".join(close) if close else ""
            raise ToolError(f"File not found: {path}.{hint}")
        refuse_special(path)
        mime = MEDIA.get(path.suffix.lower())
        if mime is not None:
            return _media(path, mime, title)
        if is_binary(path):
            raise ToolError(
                f"Cannot read binary file: {path}. Inspect it with the python or bash tool instead."
            )
        output, meta = read_page(path, args.offset or 0, args.limit or DEFAULT_LIMIT)
        return ToolResult(output=output, title=title, metadata=meta)
