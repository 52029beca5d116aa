"""``glob``: files whose path matches a pattern, newest first.

Patterns are matched against the path relative to the search folder: ``*.py`` stays in
that folder, ``**/*.py`` recurses, ``*.{ts,tsx}`` expands braces. The walk runs in a
thread so a big tree does not freeze the kernel's event loop; it keeps only the newest
matches, stops between files when the call is stopped, and gives up after ``WALK_TIMEOUT_S``.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.globs import Matcher, PatternError, glob_matcher
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult, refuse_on_error
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.paths import relative, walk_files
from jupyter_agent.tools.withheld import hider, note

LIMIT = 100
WALK_TIMEOUT_S = 30.0
"""A walk of a huge tree (``/``) ends here with what it found so far."""


class GlobArgs(BaseModel):
    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py"')
    path: str | None = Field(
        default=None,
        description="The directory to search in (default: the working directory). "
        "Omit it to use the default; do not pass 'undefined' or 'null'.",
    )


@dataclass
class Found:
    """The newest ``LIMIT`` matches (mtime, path), how many matched, and why the walk ended."""

    newest: list[tuple[float, str]] = field(default_factory=list)
    count: int = 0
    withheld: int = 0
    stopped: bool = False
    timed_out: bool = False

    def files(self) -> list[Path]:
        return [Path(p) for _, p in sorted(self.newest, key=lambda item: (-item[0], item[1]))]


def find_files(
    base: Path,
    matches: Matcher,
    hidden: Callable[[Path], bool] = lambda _: False,
    stop: threading.Event | None = None,
    timeout: float = WALK_TIMEOUT_S,
) -> Found:
    """Walk ``base`` keeping the newest ``LIMIT`` matches (memory stays small on any tree);
    ends early when ``stop`` is set or after ``timeout`` seconds."""
    found = Found()
    deadline = time.monotonic() + timeout
    for n, (path, rel) in enumerate(walk_files(base)):
        if stop is not None and stop.is_set():
            found.stopped = True
            break
        if n % 256 == 0 and time.monotonic() > deadline:
            found.timed_out = True
            break
        if not matches(rel):
            continue
        try:
            mtime = path.stat().st_mtime
        except OSError:
            continue  # a dangling symlink
        if hidden(path):
            found.withheld += 1
            continue
        found.count += 1
        item = (mtime, str(path))
        if len(found.newest) < LIMIT:
            heapq.heappush(found.newest, item)
        elif item > found.newest[0]:
            heapq.heapreplace(found.newest, item)
    return found


class GlobTool(Tool[GlobArgs]):
    name = "glob"
    mutates = False
    description = describe("glob")
    Args = GlobArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.pattern]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        if Path(args.pattern).is_absolute():
            raise ToolError("pattern must be relative (e.g. '**/*.csv'); pass the folder to search as path.")
        with refuse_on_error(f"the pattern {args.pattern[:200]!r}"):
            try:
                matches = glob_matcher(args.pattern)
            except PatternError as exc:
                raise ToolError(f"Cannot use this glob pattern: {exc}.") from None
        base = ctx.resolve(args.path if args.path not in ("undefined", "null") else None)
        await ctx.check_path(base, "Search")
        if not base.is_dir():
            raise ToolError(f"Not a directory: {base}. Give a folder as path.")
        await ctx.permit("glob", [args.pattern], f"Glob {args.pattern}")
        stop = threading.Event()
        watch = asyncio.ensure_future(ctx.abort.wait())
        watch.add_done_callback(lambda _: stop.set())
        try:
            # the walk runs in a thread (a big tree must not freeze the kernel); Stop, Ctrl-C
            # and the time limit end it between files, and matching cannot backtrack
            found = await asyncio.to_thread(find_files, base, matches, hider(ctx), stop)
        finally:
            stop.set()
            watch.cancel()
        if found.stopped:
            raise ToolError("The search was stopped.")
        title = relative(base, ctx.project_root)
        ended = (
            f"\n\n(The search stopped after {WALK_TIMEOUT_S:g} s in a large tree: these are the "
            "matches found until then. Give a narrower path.)"
            if found.timed_out
            else ""
        )
        if not found.count:
            return ToolResult(
                output="No files found" + ended + note(found.withheld),
                title=title,
                metadata={"count": 0, "timed_out": found.timed_out},
            )
        lines = [relative(p, ctx.working_dir) for p in found.files()]
        cut = found.count > LIMIT
        if cut:
            lines += [
                "",
                f"(Results are truncated: showing the {LIMIT} newest of {found.count} files. "
                "Use a more specific pattern or path.)",
            ]
        meta: dict[str, Any] = {"count": found.count, "limit_reached": cut}
        if found.timed_out:
            meta["timed_out"] = True
        if found.withheld:
            meta["withheld"] = found.withheld
        return ToolResult(output="\n".join(lines) + ended + note(found.withheld), title=title, metadata=meta)
