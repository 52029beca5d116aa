"""JSON from outside (a model's tool call, a config file) nested too deeply to handle.

Python's ``json`` raises ``RecursionError`` near 1,000 levels, and what does parse can still
break a recursive walk or pydantic later. Both become one ``TooDeep`` error saying how deep
is too deep; no real tool call or config file comes near ``MAX_DEPTH``.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""Levels of ``[]`` / ``{}`` accepted in tool-call arguments and config files."""


class TooDeep(ValueError):
    """The value is nested deeper than ``MAX_DEPTH``.

    Never reaches a front end: reading the configuration turns it into a ``ConfigError``, the tool
    registry and the stream assembler into a tool error the model reads."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"nested more than {limit} levels deep")
        self.limit = limit


def depth(value: Any) -> int:
    """Levels of lists and dicts in ``value`` (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        stack.extend((child, level) for child in children)
    return deepest


def loads(text: str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that raises ``TooDeep`` instead of ``RecursionError`` (or a value that
    would break whatever walks it next)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(limit) from None
    if depth(value) > limit:
        raise TooDeep(limit)
    return value
