"""How long a provider asks us to wait before trying again (``retry-after-ms``, ``retry-after``).

A provider's wait is honoured only when it is a finite wait of at most
``MAX_HEADER_DELAY_MS``: ``inf``, ``1e400`` or an hour is not slept (it would crash on
the float-to-int conversion or hang the run silently); the step fails with the
provider's wait in the message instead. The retries themselves are the agent's
(``agent/retrying.py``).
"""

from __future__ import annotations

import math
import time
from email.utils import parsedate_to_datetime

MAX_HEADER_DELAY_MS = 300_000


class RetryWaitTooLong(Exception):
    """The provider asked for a wait we will not sleep; ``wait`` is its header text,
    ``readable`` False when that text is not a wait at all (``soon``, ``nan``).

    Never reaches a front end: the retries turn it into the step's ``ProviderError``
    (``agent/retrying.py``)."""

    def __init__(self, wait: str, readable: bool = True) -> None:
        super().__init__(wait)
        self.wait = wait
        self.readable = readable

    def explain(self) -> str:
        if not self.readable:
            return f"The provider asked to wait ({self.wait}), which is not a wait jupyter-agent can read"
        return f"The provider asked to wait ({self.wait}), longer than jupyter-agent waits (5 minutes)"


def _checked_ms(value: float, header: str) -> int:
    if math.isnan(value) or value == -math.inf:
        raise RetryWaitTooLong(header, readable=False)
    if value > MAX_HEADER_DELAY_MS:  # ``inf`` and ``1e400`` included
        raise RetryWaitTooLong(header)
    return max(0, int(value))


def header_wait_ms(headers: dict[str, str], now: float | None = None) -> int | None:
    """The header wait in ms, ``None`` without a header; raises ``RetryWaitTooLong``.
    ``headers`` have lower-case names."""
    raw_ms = headers.get("retry-after-ms", "").strip()
    if raw_ms:
        try:
            return _checked_ms(float(raw_ms), f"retry-after-ms: {raw_ms[:40]}")
        except ValueError:
            raise RetryWaitTooLong(f"retry-after-ms: {raw_ms[:40]}", readable=False) from None
    raw = headers.get("retry-after", "").strip()
    if not raw:
        return None
    header = f"retry-after: {raw[:40]}"
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = parsedate_to_datetime(raw).timestamp()
        except (TypeError, ValueError, OverflowError, IndexError):
            raise RetryWaitTooLong(header, readable=False) from None
        seconds = when - (now if now is not None else time.time())
    return _checked_ms(seconds * 1000, header)
