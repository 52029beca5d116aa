r"""Text that cannot be stored or sent: lone surrogates (and bytes that were not UTF-8).

A Python ``str`` can hold a surrogate code point on its own: invalid UTF-8 on a command
line arrives as ``\udcff`` (``surrogateescape``), and JSON from a browser or a model may
spell ``"\ud800"``. Such text cannot be written as UTF-8, so the store and the provider
request would fail on it much later, with an error about the wrong thing. A prompt with
one is refused up front (``problem``); what a model or a tool produced is kept with
U+FFFD in its place (``scrub``).
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def problem(text: str, what: str = "the prompt") -> str | None:
    """Why ``text`` cannot be used (naming the first bad character and where), or None."""
    match = _SURROGATE.search(text)
    if match is None:
        return None
    code = ord(match.group())
    at = match.start()
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, smuggled in by surrogateescape
        return (
            f"{what} is not valid UTF-8: byte 0x{code - 0xDC00:02x} at character {at} is not text. "
            "Save or type it as UTF-8 and try again"
        )
    return (
        f"{what} holds a lone surrogate (U+{code:04X} at character {at}), which is not text. "
        "Remove it and try again"
    )


def scrub(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text) if _SURROGATE.search(text) else text


def scrub_value(value: Any) -> Any:
    """``scrub`` every string in nested dicts and lists (tool input, metadata)."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, dict):
        return {scrub(k) if isinstance(k, str) else k: scrub_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scrub_value(v) for v in value]
    return value
