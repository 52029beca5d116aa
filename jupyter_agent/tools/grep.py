"""``grep``: regex search in file contents (ripgrep when installed, else pure Python)."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import IGNORED_DIRS, is_binary, relative

LIMIT = 100
MAX_LINE = 500


class GrepArgs(BaseModel):
    pattern: str = Field(description="The regular expression to search for")
    path: str | None = Field(default=None, description="File or folder to search (default: working directory)")
    include: str | None = Field(default=None, description='Only files matching this glob, e.g. "*.py"')


def python_grep(base: Path, pattern: str, include: str | None) -> list[tuple[Path, int, str]]:
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression: {exc}") from None
    files: list[Path]
    if base.is_file():
        files = [base]
    else:
        files = []
        for folder, dirs, names in os.walk(base):
            dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
            for name in names:
                if include is None or Path(name).match(include):
                    files.append(Path(folder) / name)
    hits: list[tuple[Path, int, str]] = []
    for file in files:
        if is_binary(file):
            continue
        try:
            with file.open(encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(fh, start=1):
                    if regex.search(line):
                        hits.append((file, number, line.rstrip("\n")))
        except OSError:
            continue
    return hits


async def ripgrep(rg: str, base: Path, pattern: str, include: str | None) -> list[tuple[Path, int, str]]:
    cmd = [rg, "--line-number", "--no-heading", "--color=never", "--with-filename"]
    for d in IGNORED_DIRS:
        cmd += ["--glob", f"!{d}"]
    if include:
        cmd += ["--glob", include]
    cmd += ["--regexp", pattern, str(base)]
    proc = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await proc.communicate()
    if proc.returncode == 2:
        raise ToolError(f"grep failed: {err.decode(errors='replace').strip()}")
    hits = []
    for line in out.decode(errors="replace").splitlines():
        file, _, rest = line.partition(":")
        number, _, text = rest.partition(":")
        if number.isdigit():
            hits.append((Path(file), int(number), text))
    return hits


class GrepTool(Tool[GrepArgs]):
    name = "grep"
    description = describe("grep")
    Args = GrepArgs
    use_ripgrep = True

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.pattern]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        base = ctx.resolve(args.path)
        await ctx.check_path(base, "Search")
        if not base.exists():
            raise ToolError(f"Path not found: {base}")
        rg = shutil.which("rg") if self.use_ripgrep else None
        if rg:
            hits = await ripgrep(rg, base, args.pattern, args.include)
        else:
            hits = await asyncio.to_thread(python_grep, base, args.pattern, args.include)
        if not hits:
            return ToolResult(output="No files found", title=args.pattern, metadata={"matches": 0})
        hits.sort(key=lambda h: (-_mtime(h[0]), str(h[0]), h[1]))
        lines = [f"Found {len(hits)} matches"]
        current = None
        for file, number, text in hits[:LIMIT]:
            if file != current:
                current = file
                lines.append(f"\n{relative(file, ctx.working_dir)}:")
            lines.append(f"  Line {number}: {text[:MAX_LINE]}")
        if len(hits) > LIMIT:
            lines.append(f"\n(Results truncated: showing {LIMIT} of {len(hits)} matches. Narrow the search.)")
        return ToolResult(output="\n".join(lines), title=args.pattern, metadata={"matches": len(hits)})


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
