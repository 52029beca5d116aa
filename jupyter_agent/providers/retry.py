"""When to try a failed model call again, and how long to wait (SPEC constants).

A provider's ``Retry-After`` is honoured only when it is a finite wait of at most
``MAX_HEADER_DELAY_MS``: ``inf``, ``1e400`` or an hour is not slept (it would crash on
the float-to-int conversion or hang the run silently); the step fails with the
provider's wait in the message instead.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable
from email.utils import parsedate_to_datetime

from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.stream_events import AttemptRestart, StreamEvent

INITIAL_DELAY_MS = 2_000
BACKOFF = 2
MAX_DELAY_NO_HEADERS_MS = 30_000
MAX_HEADER_DELAY_MS = 300_000
MAX_RETRIES = 4

RetryCallback = Callable[[int, E.ProviderError, int], None]
"""Called before a retry with (attempt, the error, the wait in ms): the loop records it."""


class RetryWaitTooLong(Exception):
    """The provider asked for a wait we will not sleep; ``wait`` is its header text,
    ``readable`` False when that text is not a wait at all (``soon``, ``nan``)."""

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


def _header_ms(headers: dict[str, str], now: float | None) -> int | None:
    """The header wait in ms, ``None`` without a header; raises ``RetryWaitTooLong``."""
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


def retry_delay_ms(attempt: int, headers: dict[str, str] | None = None, now: float | None = None) -> int:
    """Delay before retry ``attempt`` (1-based): honour ``retry-after-ms`` / ``retry-after``
    up to 5 minutes; a longer or non-finite wait raises ``RetryWaitTooLong``."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    from_header = _header_ms(lowered, now)
    if from_header is not None:
        return from_header
    return min(INITIAL_DELAY_MS * BACKOFF ** (attempt - 1), MAX_DELAY_NO_HEADERS_MS)


def describe_wait(ms: int) -> str:
    """``1.5 s`` / ``2 min 5 s``: how a retry wait is shown to the user."""
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.3g} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


async def retrying(
    attempt: Callable[[], AsyncIterator[StreamEvent]],
    *,
    max_retries: int = MAX_RETRIES,
    on_retry: RetryCallback | None = None,
    abort: asyncio.Event | None = None,
) -> AsyncIterator[StreamEvent]:
    """Stream ``attempt()`` with our visible retries (SPEC delays), whichever client streams;
    yields ``attempt-restart`` before re-streaming when a failed attempt had produced output."""
    tries = 0
    while True:
        produced = False
        try:
            async for event in attempt():
                produced = True
                yield event
            return
        except E.ProviderError as exc:
            if not exc.retryable or tries >= max_retries or (abort and abort.is_set()):
                raise
            tries += 1
            try:
                delay = retry_delay_ms(tries, exc.headers)
            except RetryWaitTooLong as wait:
                said = exc.message.rstrip()
                raise type(exc)(
                    f"{said}{'' if said.endswith(('.', '!', '?')) else '.'} {wait.explain()}; "
                    "run the prompt again later.",
                    status=exc.status,
                ) from exc
            if on_retry is not None:
                on_retry(tries, exc, delay)
            await sleep(delay / 1000, abort)
            if produced:
                yield AttemptRestart(attempt=tries)


async def sleep(seconds: float, abort: asyncio.Event | None) -> None:
    """Wait before a retry; a Stop during the wait ends it with ``AbortedError``."""
    if abort is None:
        await asyncio.sleep(seconds)
        return
    try:
        await asyncio.wait_for(abort.wait(), timeout=seconds)
    except asyncio.TimeoutError:
        return
    raise E.AbortedError("Stopped by the user.")
