"""Sortable identifiers: ``ses_…``, ``msg_…``, ``prt_…``, ``per_…``, ``tool_…``, ``stg_…`` (staged edits).

An id is its prefix, 12 hex digits of (milliseconds << 12 | counter) and 14 random
base62 characters. Ids made later compare greater as plain strings, so the store and
the context code can order parts and messages by id alone (as OpenCode does).
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Literal

Prefix = Literal["ses", "msg", "prt", "per", "tool", "call", "stg"]

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_lock = threading.Lock()
_last = 0


def _monotonic_stamp() -> int:
    """A strictly increasing stamp: ms since epoch shifted left 12 bits plus a counter."""
    global _last
    with _lock:
        stamp = int(time.time() * 1000) << 12
        if stamp <= _last:
            stamp = _last + 1
        _last = stamp
        return stamp


def ascending(prefix: Prefix) -> str:
    """A new id of ``prefix`` that sorts after every id made before it in this process."""
    rand = "".join(secrets.choice(_ALPHABET) for _ in range(14))
    return f"{prefix}_{_monotonic_stamp():014x}{rand}"


def timestamp_ms(identifier: str) -> int:
    """The creation time (ms) encoded in an id made by :func:`ascending`."""
    _, _, body = identifier.partition("_")
    return int(body[:14], 16) >> 12
