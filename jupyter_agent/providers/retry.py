"""When to try a failed model call again, and how long to wait (SPEC constants)."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

INITIAL_DELAY_MS = 2_000
BACKOFF = 2
MAX_DELAY_NO_HEADERS_MS = 30_000
MAX_RETRIES = 4


def retry_delay_ms(attempt: int, headers: dict[str, str] | None = None, now: float | None = None) -> int:
    """Delay before retry ``attempt`` (1-based): honour ``retry-after-ms`` / ``retry-after``."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    if "retry-after-ms" in headers:
        try:
            return max(0, int(float(headers["retry-after-ms"])))
        except ValueError:
            pass
    if "retry-after" in headers:
        value = headers["retry-after"].strip()
        try:
            return max(0, int(float(value) * 1000))
        except ValueError:
            try:
                when = parsedate_to_datetime(value).timestamp()
                return max(0, int((when - (now if now is not None else time.time())) * 1000))
            except (TypeError, ValueError):
                pass
    return min(INITIAL_DELAY_MS * BACKOFF ** (attempt - 1), MAX_DELAY_NO_HEADERS_MS)
