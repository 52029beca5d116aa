"""``edit``: exact string replacement, with OpenCode-style fallbacks for whitespace drift.

Models often copy a block with the wrong indentation, collapsed spaces or a stray blank
line around it. When the exact text is absent, the replacers below are tried in order
(stricter first); each yields the spans of the file that "mean" ``oldString``. The first
replacer that finds anything decides: one span is replaced, several need ``replaceAll``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe
from jupyter_agent.tools.diffs import unified_diff
from jupyter_agent.tools.paths import relative
from jupyter_agent.tools.read import refuse_special
from jupyter_agent.tools.write import record_and_write

Span = tuple[int, int]


class EditArgs(BaseModel):
    filePath: str = Field(description="The path of the file to modify")
    oldString: str = Field(description="The text to replace")
    newString: str = Field(description="The text to replace it with (must differ from oldString)")
    replaceAll: bool = Field(
        default=False, description="Replace all occurrences of oldString (default false)"
    )


def _exact(content: str, find: str) -> list[Span]:
    spans, start = [], content.find(find)
    while start >= 0:
        spans.append((start, start + len(find)))
        start = content.find(find, start + len(find))
    return spans


def _line_windows(content: str, find: str, same: Callable[[list[str], list[str]], bool]) -> list[Span]:
    """Spans of whole-line windows of ``content`` that ``same`` judges equal to ``find``."""
    lines = content.split("\n")
    wanted = find.split("\n")
    if wanted and wanted[-1].strip() == "":
        wanted.pop()
    if not wanted:
        return []
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    spans: list[Span] = []
    n, i = len(wanted), 0
    while i + n <= len(lines):
        if same(lines[i : i + n], wanted):
            end = starts[i + n] - 1
            if find.endswith("\n") and end < len(content):
                end += 1  # keep the newline the model included
            spans.append((starts[i], end))
            i += n
        else:
            i += 1
    return spans


def _line_trimmed(content: str, find: str) -> list[Span]:
    """Each line equal after stripping leading/trailing whitespace."""

    def same(a: list[str], b: list[str]) -> bool:
        return [x.strip() for x in a] == [y.strip() for y in b]

    return _line_windows(content, find, same)


def _whitespace_normalised(content: str, find: str) -> list[Span]:
    """Equal once every run of whitespace (including line breaks) is one space."""

    def norm(lines: list[str]) -> str:
        return " ".join(" ".join(lines).split())

    return _line_windows(content, find, lambda a, b: norm(a) == norm(b))


def _escape_normalised(content: str, find: str) -> list[Span]:
    r"""The model double-escaped: ``\n``, ``\t``, ``\"`` written literally."""
    unescaped = re.sub(r"\\([nt\"'\\])", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1]), find)
    return _exact(content, unescaped) if unescaped != find else []


def _trimmed_boundary(content: str, find: str) -> list[Span]:
    """Stray blank lines or spaces around an otherwise exact block."""
    stripped = find.strip()
    return _exact(content, stripped) if stripped and stripped != find else []


REPLACERS: list[Callable[[str, str], list[Span]]] = [
    _exact,
    _line_trimmed,
    _whitespace_normalised,
    _escape_normalised,
    _trimmed_boundary,
]


def find_spans(content: str, old: str) -> list[Span]:
    """Where ``old`` is in ``content``: exact matches, else the first fallback that matches."""
    for replacer in REPLACERS:
        spans = replacer(content, old)
        if spans:
            return spans
    return []


def replace_spans(content: str, spans: list[Span], new: str) -> str:
    out, last = [], 0
    for start, end in sorted(spans):
        out += [content[last:start], new]
        last = end
    return "".join(out) + content[last:]


def apply_edit(content: str, old: str, new: str, replace_all: bool, rel: str) -> tuple[str, int]:
    """The new content and the number of replacements, or a ToolError saying what to fix."""
    if "\r\n" in content and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")
    spans = find_spans(content, old)
    if not spans:
        raise ToolError(
            f"oldString not found in file {rel}. It must match the file exactly, including "
            "whitespace and indentation; read the file again and copy the text (without the "
            "line-number prefix)."
        )
    if len(spans) > 1 and not replace_all:
        raise ToolError(
            f"Found {len(spans)} matches for oldString in {rel}; add more context (surrounding "
            "lines) to make it unique, or set replaceAll to true to change every occurrence."
        )
    return replace_spans(content, spans, new), len(spans)


class EditTool(Tool[EditArgs]):
    name = "edit"
    description = describe("edit")
    Args = EditArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.filePath]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        if args.oldString == args.newString:
            raise ToolError("oldString and newString are identical; there is nothing to change.")
        path = ctx.resolve(args.filePath)
        await ctx.check_write(path, "Edit")
        rel = relative(path, ctx.project_root)
        if path.is_dir():
            raise ToolError(f"{path} is a directory; give the path of a file.")
        existed = path.exists()
        if existed and not path.is_dir():
            refuse_special(path)  # reading a FIFO blocks the kernel forever
        if not existed:
            if args.oldString != "":
                raise ToolError(
                    f"File not found: {path}. Check the path (use glob to find it), or create "
                    "the file with write (or edit with an empty oldString)."
                )
            before = ""
            updated, count = args.newString, 1
        else:
            try:
                before = path.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                raise ToolError(f"{rel} is not a UTF-8 text file; it cannot be edited.") from None
            if args.oldString == "":
                if before.strip():
                    raise ToolError(
                        f"oldString is empty but {rel} already has content. Give the exact text "
                        "to replace, or use write to replace the whole file."
                    )
                updated, count = args.newString, 1
            else:
                updated, count = apply_edit(before, args.oldString, args.newString, args.replaceAll, rel)
        diff = unified_diff(before, updated, rel)
        await ctx.permit("edit", [rel], f"Edit {rel}", filepath=str(path), diff=diff)
        current = path.read_bytes().decode("utf-8", errors="replace") if path.exists() else ""
        if current != before:
            raise ToolError(f"{rel} changed while waiting for permission; read it again and retry.")
        record_and_write(ctx, path, updated)
        added = sum(1 for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++"))
        removed = sum(1 for x in diff.splitlines() if x.startswith("-") and not x.startswith("---"))
        what = "Edited" if existed else "Created"
        return ToolResult(
            output=f"{what} {rel}: {count} replacement(s), +{added} -{removed} lines.",
            title=rel,
            metadata={"filepath": str(path), "diff": diff, "replacements": count},
        )
