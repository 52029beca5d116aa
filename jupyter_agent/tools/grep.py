"""``grep``: regex search in file contents — ripgrep when installed, else a pure-Python walk.

Both backends skip the same folders, binary files and symlinks (ripgrep does not follow
links by default; the Python walk matches that so a link can't leak a file from outside
the project). Differences worth knowing: ripgrep also honours ``.gitignore`` and uses
Rust regex syntax; the Python walk uses ``re``. Matches come newest file first.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import stat
import sys
import sysconfig
from collections.abc import Callable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.globs import PatternError, expand_braces, glob_matcher
from jupyter_agent.tools import search_proc
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult, refuse_on_error
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import SKIP_DIRS, is_binary, relative, walk_files
from jupyter_agent.tools.search_proc import SearchResult, parse_hit
from jupyter_agent.tools.withheld import hider, note

LIMIT = 100
MAX_LINE = 500
MAX_FILE_BYTES = 20 * 1024 * 1024
COLLECT = 10_000
"""Stop collecting after this many hits: enough for an honest count, bounded memory."""

Hit = tuple[Path, int, str]


class GrepArgs(BaseModel):
    pattern: str = Field(description="The regex pattern to search for in file contents")
    path: str | None = Field(
        default=None,
        description="The file or directory to search in (default: the working directory)",
    )
    include: str | None = Field(
        default=None,
        description='File pattern to include in the search (e.g. "*.py", "*.{ts,tsx}")',
    )


def _included(include: str | None) -> Callable[[str], bool]:
    """ripgrep glob rules: a pattern without ``/`` matches the file name at any depth."""
    if include is None:
        return lambda rel: True
    if "/" in include:
        return glob_matcher(include)
    names = expand_braces(include)
    return lambda rel: any(fnmatchcase(rel.rsplit("/", 1)[-1], p) for p in names)


def python_grep(base: Path, pattern: str, include: str | None) -> list[Hit]:
    """Matching lines under ``base`` (a file or a folder), at most ``COLLECT``."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {pattern!r}: {exc}") from None
    if base.is_file():
        files = [base]
    else:
        walked = walk_files(base, SKIP_DIRS)
        included = _included(include)
        files = [p for p, rel in walked if not p.is_symlink() and included(rel)]
    hits: list[Hit] = []
    for file in files:
        try:
            info = file.stat()
            # a FIFO, socket or device would block or never end: only regular files
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES or is_binary(file):
                continue
            with file.open("rb") as fh:
                for number, raw in enumerate(fh, start=1):
                    line = raw[: MAX_LINE * 8].decode("utf-8", errors="replace").rstrip("\r\n")
                    if regex.search(line):
                        hits.append((file, number, line))
                        if len(hits) >= COLLECT:
                            return hits
        except OSError:
            continue
    return hits


def parse_ripgrep(out: bytes) -> list[Hit]:
    r"""``--null`` output: ``path\0line:text`` per hit, so colons in paths are safe."""
    return [hit for raw in out.splitlines() if (hit := parse_hit(raw)) is not None]


def find_rg() -> str | None:
    """The ``rg`` of the ``ripgrep`` wheel next to this Python (a kernel's PATH may not
    include the environment's bin folder), else one on PATH."""
    for scheme in (None, f"{os.name}_user"):
        with contextlib.suppress(KeyError):
            folder = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
            candidate = Path(folder) / ("rg.exe" if os.name == "nt" else "rg")
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("rg")


def _search_failed(result: SearchResult, what: str) -> ToolError:
    if result.stopped:
        return ToolError("The search was stopped.")
    return ToolError(
        f"grep stopped after {search_proc.SEARCH_TIMEOUT_S:g} s without finishing ({what}). Search a "
        "narrower path, add an include filter, or simplify the pattern (nested repeats such as "
        "(a+)+ take exponential time)."
    )


async def ripgrep(
    rg: str, base: Path, pattern: str, include: str | None, abort: asyncio.Event | None = None
) -> list[Hit]:
    cmd = [
        rg,
        "--line-number",
        "--no-heading",
        "--with-filename",
        "--null",
        "--color=never",
        "--hidden",
        "--no-messages",
        f"--max-filesize={MAX_FILE_BYTES}",
        f"--max-columns={MAX_LINE * 4}",
        "--max-columns-preview",
    ]
    for d in sorted(SKIP_DIRS):
        cmd += ["--glob", f"!{d}"]
    for glob in expand_braces(include) if include else []:
        cmd += ["--glob", glob]
    # rg anchors globs with a slash (``pkg/*.py``) at its working directory: search from base
    folder = base.is_dir()
    cmd += ["--regexp", pattern, "--", "." if folder else str(base)]
    result = await search_proc.run_search(cmd, abort, COLLECT, cwd=base if folder else None)
    hits = [(base / file, n, text) for file, n, text in result.hits] if folder else result.hits
    if (result.timed_out or result.stopped) and not hits:
        raise _search_failed(result, "ripgrep")
    # exit 1 = no match; 2 = an error, which may still come with matches (unreadable files)
    if result.returncode == 2 and not hits:
        message = result.stderr.decode(errors="replace").strip() or "ripgrep error"
        raise ToolError(f"grep failed: {message}")
    return hits


async def fallback_grep(
    base: Path, pattern: str, include: str | None, abort: asyncio.Event | None
) -> list[Hit]:
    """``python_grep`` in a child process (``grep_worker``): stoppable and time-bounded."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {pattern!r}: {exc}") from None
    cmd = [sys.executable, "-m", "jupyter_agent.tools.grep_worker", str(base), pattern, include or ""]
    result = await search_proc.run_search(cmd, abort, COLLECT)
    if (result.timed_out or result.stopped) and not result.hits:
        raise _search_failed(result, "Python regex engine; ripgrep is not installed")
    if result.returncode not in (0, 1, None) and not result.hits:
        raise ToolError(f"grep failed: {result.stderr.decode(errors='replace').strip()[-500:]}")
    return result.hits


def format_hits(hits: list[Hit], working_dir: Path) -> str:
    """``Found N matches`` then the hits grouped by file, newest file first."""
    mtimes: dict[Path, float] = {}
    for file, _, _ in hits:
        if file not in mtimes:
            try:
                mtimes[file] = file.stat().st_mtime
            except OSError:
                mtimes[file] = 0.0
    hits = sorted(hits, key=lambda h: (-mtimes[h[0]], str(h[0]), h[1]))
    shown = hits[:LIMIT]
    more = "+" if len(hits) >= COLLECT else ""
    showing = f" (showing first {LIMIT})" if len(hits) > LIMIT else ""
    lines = [f"Found {len(hits)}{more} matches{showing}"]
    current: Path | None = None
    for file, number, text in shown:
        if file != current:
            current = file
            lines += ["", f"{relative(file, working_dir)}:"]
        if len(text) > MAX_LINE:
            text = text[:MAX_LINE] + "..."
        lines.append(f"  Line {number}: {text}")
    if len(hits) > LIMIT:
        lines += ["", "(Results are truncated. Consider using a more specific path or pattern.)"]
    return "\n".join(lines)


class GrepTool(Tool[GrepArgs]):
    name = "grep"
    mutates = False
    description = describe("grep")
    Args = GrepArgs

    def __init__(self, use_ripgrep: bool = True) -> None:
        # False forces the pure-Python backend (tests; systems with a broken ``rg``)
        self.use_ripgrep = use_ripgrep

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.pattern]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        if not args.pattern:
            raise ToolError("pattern is empty; give a regular expression to search for.")
        base = ctx.resolve(args.path)
        await ctx.check_path(base, "Search")
        if not base.exists():
            raise ToolError(f"Path not found: {base}")
        await ctx.permit("grep", [args.pattern], f"Grep {args.pattern}")
        with refuse_on_error(f"the include pattern {str(args.include)[:200]!r}"):
            try:
                _included(args.include)
            except PatternError as exc:
                raise ToolError(f"Cannot use this include pattern: {exc}.") from None
        if not base.is_dir() and not stat.S_ISREG(base.stat().st_mode):
            raise ToolError(f"{base} is a pipe, socket or device, not a file or folder; not searched.")
        rg = find_rg() if self.use_ripgrep else None
        if rg:
            hits = await ripgrep(rg, base, args.pattern, args.include, ctx.abort)
        else:
            hits = await fallback_grep(base, args.pattern, args.include, ctx.abort)
        hidden = hider(ctx, contents=True)
        withheld = len({file for file, _, _ in hits if hidden(file)})
        hits = [hit for hit in hits if not hidden(hit[0])]
        meta: dict[str, Any] = {"matches": len(hits), "backend": "rg" if rg else "python"}
        if withheld:
            meta["withheld"] = withheld
        if not hits:
            return ToolResult(
                output="No files found" + note(withheld, True), title=args.pattern, metadata=meta
            )
        meta["limit_reached"] = len(hits) > LIMIT
        output = format_hits(hits, ctx.working_dir) + note(withheld, True)
        return ToolResult(output=output, title=args.pattern, metadata=meta)
