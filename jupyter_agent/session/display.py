"""Short forms of what a part holds, for every view: a call in one line, output capped.

Below ``ui/`` so the export, the transcript, the widget and the CLI all say it the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from jupyter_agent.core.messages import Attachment

OUTPUT_CAP = 20_000
"""Characters of tool output shown; the rest is in the store (and the model's spill file)."""
SUMMARY_CAP = 120
# The argument that says best what a call does, in order of preference.
SUMMARY_KEYS = (
    "command", "filePath", "file_path", "path", "pattern", "code", "url", "query",
    "name", "description", "prompt", "action",
)  # fmt: skip


CODE_INPUTS = {
    "python": ("code", "python"),
    "bash": ("command", "bash"),
    "notebook_edit": ("source", "python"),
}
"""Tools whose input is code: (argument, language) shown highlighted in the tool card."""


def _one_line(text: str, cap: int = SUMMARY_CAP) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= cap else line[: cap - 1] + "…"


def input_summary(data: dict[str, Any]) -> str:
    """One line that says what a call does: the command, the path, the code's first line."""
    for key in SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return _one_line(value)
    return _one_line(json.dumps(data, ensure_ascii=False, default=str)) if data else ""


def cap_output(text: str, cap: int = OUTPUT_CAP) -> str:
    """At most ``cap`` characters for display, with a note saying how much was left out."""
    if len(text) <= cap:
        return text
    return text[:cap] + f"\n… ({len(text) - cap:,} more chars)"


def without_attachment_notes(output: str, attachments: Iterable[Attachment]) -> str:
    """The output without the ``[image/png attached]`` lines that stand for its attachments:
    the model reads them, the user sees the image itself right below."""
    notes = {f"[{a.mime} attached]" for a in attachments}
    if not notes:
        return output
    return "\n".join(line for line in output.split("\n") if line.strip() not in notes)
