"""The diff an approval and a tool card show: what a write, an edit or a cell edit changes."""

from __future__ import annotations

import difflib

MAX_DIFF_LINES = 400


def unified_diff(before: str, after: str, rel: str) -> str:
    """A unified diff for the UI and the permission prompt, capped to stay small."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, f"a/{rel}", f"b/{rel}"))
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... ({len(lines) - MAX_DIFF_LINES} more diff lines)\n"]
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
