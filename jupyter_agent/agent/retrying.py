"""When to try a failed model call again, and how long to wait (SPEC constants).

Retries belong to the agent, not to a client: ``RetryingModel`` wraps any ``ModelClient``
(the litellm adapter, the in-process scripted model), so each is tried once per attempt
and the waits, the ``attempt-restart`` after partial output and a Stop during a wait
behave the same whichever streams. How long a provider asks to wait is read from its
headers in ``providers/retry_after.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.stream_events import AttemptRestart, StreamEvent
from jupyter_agent.providers.retry_after import RetryWaitTooLong, header_wait_ms

if TYPE_CHECKING:  # the CLI's printer imports this module for describe_wait: it stays light
    from jupyter_agent.agent.ports import ModelClient

INITIAL_DELAY_MS = 2_000
BACKOFF = 2
MAX_DELAY_NO_HEADERS_MS = 30_000
MAX_RETRIES = 4

RetryCallback = Callable[[int, E.ProviderError, int], None]
"""Called before a retry with (attempt, the error, the wait in ms): the loop records it."""


class RetryingModel:
    """``client`` with our visible retries of a streamed answer (``retries`` in config).

    Only streams are wrapped: a one-piece ``request`` (a session title) goes to the client
    itself and is not retried, a title being a nicety."""

    def __init__(self, client: ModelClient, max_retries: int = MAX_RETRIES) -> None:
        self.client = client
        self.max_retries = max_retries

    def request_stream(
        self,
        request: ModelRequest,
        *,
        abort: asyncio.Event | None = None,
        on_retry: RetryCallback | None = None,
    ) -> AsyncIterator[StreamEvent]:
        return retrying(
            lambda: self.client.request_stream(request, abort=abort),
            max_retries=self.max_retries,
            on_retry=on_retry,
            abort=abort,
        )


def retry_delay_ms(attempt: int, headers: dict[str, str] | None = None, now: float | None = None) -> int:
    """Delay before retry ``attempt`` (1-based): honour ``retry-after-ms`` / ``retry-after``
    up to 5 minutes; a longer or non-finite wait raises ``RetryWaitTooLong``."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    from_header = header_wait_ms(lowered, now)
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
