"""Truncation of every tool result (SPEC "Truncation of each tool result").

Pure: the caller injects ``save`` (which writes the full text and returns its path), so
the rule itself is testable byte for byte. When ``save`` fails (``OSError``) the truncated
result is kept with a note instead of losing the whole output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

MAX_LINES = 2000
MAX_BYTES = 51_200
MAX_SAVED_BYTES = 50 * 1024 * 1024
"""A tool's saved full output stops here (``tool_output.max_saved_bytes``); bash and python
stop the command or code that wrote that much."""
HINT_TASK = (
    "Use the Task tool to have explore agent process this file with Grep and Read "
    "(with offset/limit). Do NOT read the full file yourself - delegate to save context."
)
HINT_PLAIN = "Use Grep to search the full content or Read with offset/limit to view specific sections."


@dataclass(frozen=True)
class TruncateResult:
    content: str
    truncated: bool
    output_path: str | None = None


def _keep(lines: list[str], max_lines: int, max_bytes: int) -> tuple[list[str], bool]:
    """Lines that fit both limits, and whether the byte limit was what stopped us."""
    kept: list[str] = []
    size = 0
    for i, line in enumerate(lines):
        if i >= max_lines:
            return kept, False
        cost = len(line.encode("utf-8")) + (1 if i > 0 else 0)
        if size + cost > max_bytes:
            return kept, True
        kept.append(line)
        size += cost
    return kept, False


def truncate_output(
    text: str,
    *,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
    direction: Literal["head", "tail"] = "head",
    has_task_tool: bool = False,
    save: Callable[[str], str],
    whole: tuple[int, int] | None = None,
) -> TruncateResult:
    """Keep the head (or tail) within both limits; save the whole text when cutting.

    ``whole`` = (bytes, lines) when ``text`` is only the kept end of a longer output that
    ``save`` already holds: the counts of what was cut are taken from it."""
    lines = text.split("\n")
    total_bytes, total_lines = whole or (len(text.encode("utf-8")), len(lines))
    if total_lines <= max_lines and total_bytes <= max_bytes:
        return TruncateResult(text, False)
    source = lines if direction == "head" else list(reversed(lines))
    kept, hit_bytes = _keep(source, max_lines, max_bytes)
    if whole is not None and len(kept) == len(source):  # all we have fits: the rest was cut
        hit_bytes = total_bytes > max_bytes
    if direction == "tail":
        kept.reverse()
    preview = "\n".join(kept)
    if hit_bytes:
        removed, unit = total_bytes - len(preview.encode("utf-8")), "bytes"
    else:
        removed, unit = total_lines - len(kept), "lines"
    path: str | None
    try:
        path = save(text)
        hint = f"The tool call succeeded but the output was truncated. Full output saved to: {path}\n" + (
            HINT_TASK if has_task_tool else HINT_PLAIN
        )
    except OSError as exc:  # tool-output/ not writable, a full disk: keep what fits
        path = None
        hint = (
            "The tool call succeeded but the output was truncated. The full output could not be "
            f"saved ({exc.strerror or exc}), so only the part shown here is kept."
        )
    if direction == "head":
        content = f"{preview}\n\n...{removed} {unit} truncated...\n\n{hint}"
    else:
        content = f"...{removed} {unit} truncated...\n\n{hint}\n\n{preview}"
    return TruncateResult(content, True, path)
