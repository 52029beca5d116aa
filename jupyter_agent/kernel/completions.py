"""What ``@`` completes to in the side panel: variables, ``cell:N``, ``file:path``.

The same three mention forms ``mentions.py`` expands, so whatever the panel offers is
understood when the prompt is sent. Answers are capped: a prompt box is not a file browser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_agent.kernel.mentions import typed_inputs
from jupyter_agent.tools.variables import user_variables

LIMIT = 30


def _first_line(text: str, cap: int = 60) -> str:
    line = next((s for s in str(text).splitlines() if s.strip()), "")
    return line if len(line) <= cap else line[: cap - 1] + "…"


def _variables(shell: Any, prefix: str) -> list[tuple[str, str]]:
    return [
        (name, type(value).__name__)
        for name, value in sorted(user_variables(shell).items())
        if name.startswith(prefix)
    ]


def _cells(shell: Any, prefix: str) -> list[tuple[str, str]]:
    inputs = typed_inputs(shell)
    return [
        (f"cell:{n}", _first_line(inputs[n]))
        for n in range(len(inputs) - 1, 0, -1)
        if str(n).startswith(prefix) and str(inputs[n]).strip()
    ]


def _files(root: Path, prefix: str) -> list[tuple[str, str]]:
    folder, _, stem = prefix.rpartition("/")
    base = (root / folder).resolve() if folder else root
    if not base.is_dir() or (base != root and root not in base.parents):
        return []
    items: list[tuple[str, str]] = []
    for entry in sorted(base.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())):
        if entry.name.startswith(".") or not entry.name.startswith(stem):
            continue
        rel = f"{folder}/{entry.name}" if folder else entry.name
        items.append(
            (f"file:{rel}/" if entry.is_dir() else f"file:{rel}", "folder" if entry.is_dir() else "file")
        )
    return items


def complete(query: str, shell: Any, root: Path) -> list[tuple[str, str]]:
    """``(label, detail)`` pairs for the text after ``@``; the label replaces it."""
    if query.startswith("cell:"):
        found = _cells(shell, query[5:])
    elif query.startswith("file:"):
        found = _files(root.resolve(), query[5:])
    else:
        found = _variables(shell, query)
        if not query or "cell:".startswith(query):
            found.append(("cell:", "a cell by execution count"))
        if not query or "file:".startswith(query):
            found.append(("file:", "a file in the project"))
    return found[:LIMIT]
