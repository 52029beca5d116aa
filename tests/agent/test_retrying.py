"""Retries are the agent's: ``RetryingModel`` wraps any client with the SPEC's delays
(2 s × 2 capped at 30 s, headers honoured), drops a failed attempt's partial output and
stops waiting on a Stop. The in-process scripted model tries once, like every client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from email.utils import formatdate
from typing import Any

import pytest
from scripted_model import ScriptedModel
from scripted_server import ErrorReply, Reply

from jupyter_agent.agent.retrying import RetryingModel, retry_delay_ms
from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.messages import RetryPart, Tokens
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.stream_events import FinishStep, StreamEvent, TextDelta, TextEnd, TextStart

REQUEST = ModelRequest(model="openai/test", messages=[{"role": "user", "content": "hi"}])


def test_backoff_without_headers() -> None:
    assert [retry_delay_ms(n) for n in range(1, 7)] == [2000, 4000, 8000, 16000, 30000, 30000]


def test_headers_win() -> None:
    assert retry_delay_ms(1, {"retry-after-ms": "250"}) == 250
    assert retry_delay_ms(3, {"Retry-After": "7"}) == 7000
    now = 1_800_000_000.0
    assert retry_delay_ms(1, {"retry-after": formatdate(now + 12, usegmt=True)}, now=now) == 12_000


async def test_a_client_tries_once() -> None:
    model = ScriptedModel()
    model.queue(ErrorReply(500, "overloaded", {"retry-after-ms": "1"}), Reply(text="ok"))
    with pytest.raises(E.ApiError) as info:
        async for _ in model.request_stream(REQUEST):
            pass
    assert info.value.retryable and len(model.requests) == 1


async def test_the_wrapper_retries_after_the_providers_wait() -> None:
    model = ScriptedModel()
    model.queue(ErrorReply(503, "overloaded", {"retry-after-ms": "5"}), Reply(text="ok"))
    told: list[tuple[int, str, int]] = []
    retried = RetryingModel(model, max_retries=2)
    events = [
        e
        async for e in retried.request_stream(
            REQUEST, on_retry=lambda n, err, ms: told.append((n, err.message, ms))
        )
    ]
    assert told == [(1, "The provider failed (503): overloaded", 5)]
    assert not any(e.type == "attempt-restart" for e in events)  # the 503 had streamed nothing
    assert "".join(e.delta for e in events if e.type == "text-delta") == "ok"
    assert len(model.requests) == 2


class Flaky:
    """Any client at all: the first attempt streams a little, then the connection drops."""

    def __init__(self) -> None:
        self.attempts = 0

    async def request_stream(
        self, request: ModelRequest, *, abort: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        self.attempts += 1
        yield TextStart()
        if self.attempts == 1:
            yield TextDelta(delta="partial")
            raise E.IncompleteStreamError("cut", headers={"retry-after-ms": "1"})
        yield TextDelta(delta="whole")
        yield TextEnd()
        yield FinishStep(reason="stop", usage=Tokens())

    async def request(self, request: ModelRequest) -> tuple[str, float | None]:
        return "title", None


async def test_a_retry_after_partial_output_says_to_start_over() -> None:
    events = [e async for e in RetryingModel(Flaky()).request_stream(REQUEST)]
    kinds = [e.type for e in events]
    assert kinds == [
        "text-start",
        "text-delta",
        "attempt-restart",
        "text-start",
        "text-delta",
        "text-end",
        "finish-step",
    ]
    assert events[2].attempt == 1 and events[4].delta == "whole"


async def test_a_stop_during_the_wait_ends_it() -> None:
    model = ScriptedModel()
    model.queue(ErrorReply(429, "slow down", {"retry-after": "60"}), Reply(text="never"))
    abort = asyncio.Event()
    retried = RetryingModel(model)

    async def consume() -> None:
        async for _ in retried.request_stream(REQUEST, abort=abort, on_retry=lambda *_: abort.set()):
            pass

    started = time.monotonic()
    with pytest.raises(E.AbortedError):
        await asyncio.wait_for(consume(), timeout=30)
    assert time.monotonic() - started < 30 and len(model.requests) == 1


async def test_a_wait_too_long_fails_at_once() -> None:
    model = ScriptedModel()
    model.queue(ErrorReply(429, "rate limited", {"retry-after": "3600"}))
    told: list[Any] = []
    with pytest.raises(E.RateLimitError) as info:
        async for _ in RetryingModel(model).request_stream(REQUEST, on_retry=lambda *a: told.append(a)):
            pass
    assert "longer than jupyter-agent waits (5 minutes)" in info.value.message and told == []


async def test_the_loop_retries_as_configured(make_runtime: Any, scripted_model: ScriptedModel) -> None:
    """``retries`` reaches the step: one retry part, then the provider's error on the answer."""
    runtime = make_runtime(retries=1)
    scripted_model.queue(*[ErrorReply(500, "down", {"retry-after-ms": "1"}) for _ in range(3)])
    sid = await runtime.prompt("hi")
    retries = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, RetryPart)]
    assert [r.attempt for r in retries] == [1] and len(scripted_model.requests) == 2
    last = runtime.store.messages(sid)[-1].info
    assert last.error is not None and "The provider failed (500): down" in last.error.message
