"""Wall-clock time in integer milliseconds, the unit of every stored ``time`` field."""

from __future__ import annotations

import time


def now_ms() -> int:
    """Milliseconds since the epoch."""
    return int(time.time() * 1000)
