"""The litellm client over real HTTP to the scripted server (litellm itself is not mocked)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from scripted_server import ErrorReply, Reply, ToolCall, Usage

from jupyter_agent.agent.retrying import RetryingModel
from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.providers.litellm_client import LiteLLMClient
from jupyter_agent.providers.models import provider_family, resolve_limits


def _request(server: Any, text: str = "hi", key: str = "sk-test") -> ModelRequest:
    return ModelRequest(
        model=server.model,
        messages=[{"role": "user", "content": text}],
        connection=Connection(api_base=server.base_url, api_key=key),
    )


async def _collect(server: Any) -> list[Any]:
    client = LiteLLMClient()
    return [e async for e in client.request_stream(_request(server))]


async def test_events_and_usage(scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(
            reasoning="think",
            text="hello world",
            tool_calls=[ToolCall("read", '{"filePath": "a.py"}', id="c1")],
            usage=Usage(prompt_tokens=1000, completion_tokens=300, reasoning_tokens=50, cached_tokens=200),
        )
    )
    events = await _collect(scripted_server)
    kinds = [e.type for e in events]
    assert kinds[0] == "reasoning-start" and "reasoning-end" in kinds and "text-start" in kinds
    assert "".join(e.delta for e in events if e.type == "text-delta") == "hello world"
    call = next(e for e in events if e.type == "tool-call")
    assert call.call_id == "c1" and call.arguments == '{"filePath": "a.py"}'
    assert sum(1 for e in events if e.type == "tool-input-delta") > 1
    finish = events[-1]
    assert finish.type == "finish-step" and finish.reason == "tool-calls"
    u = finish.usage
    assert (u.input, u.output, u.reasoning, u.cache.read) == (800, 250, 50, 200)


async def test_errors_are_typed(scripted_server: Any) -> None:
    scripted_server.queue(ErrorReply(401, "invalid key"))
    with pytest.raises(E.AuthError, match="OPENAI_API_KEY"):
        await _collect(scripted_server)
    scripted_server.queue(ErrorReply(400, "This model's maximum context length is 8192 tokens"))
    with pytest.raises(E.ContextOverflowError):
        await _collect(scripted_server)
    scripted_server.queue(ErrorReply(429, "slow down", {"retry-after": "3"}))
    with pytest.raises(E.RateLimitError) as info:
        await _collect(scripted_server)
    assert info.value.headers.get("retry-after") == "3"


async def test_provider_errors_read_without_litellm_class_names(scripted_server: Any) -> None:
    """User sees "The provider failed (503): Service overloaded", not litellm's
    "litellm.ServiceUnavailableError: ServiceUnavailableError: OpenAIException - …"."""
    scripted_server.queue(ErrorReply(503, "Service overloaded"))
    with pytest.raises(E.ApiError) as info:
        await _collect(scripted_server)
    assert str(info.value) == "The provider failed (503): Service overloaded"


async def test_disconnect_is_incomplete_and_retry_restarts(scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="cut " * 50, disconnect_after_chunks=4))
    with pytest.raises(E.IncompleteStreamError):
        await _collect(scripted_server)
    scripted_server.queue(Reply(text="cut " * 50, disconnect_after_chunks=4), Reply(text="whole"))
    retries: list[int] = []
    client = RetryingModel(LiteLLMClient())
    start = time.monotonic()
    events = [
        e
        async for e in client.request_stream(
            _request(scripted_server, "x", "k"), on_retry=lambda attempt, err, ms: retries.append(ms)
        )
    ]
    assert retries == [2000] and time.monotonic() - start >= 1.9
    restart = [i for i, e in enumerate(events) if e.type == "attempt-restart"]
    assert len(restart) == 1
    assert "".join(e.delta for e in events[restart[0] :] if e.type == "text-delta") == "whole"


async def test_abort_stops_a_slow_stream(scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="slow " * 200, chunk_size=2, delay_per_chunk=0.05))
    abort = asyncio.Event()
    client = LiteLLMClient()

    async def consume() -> None:
        async for _ in client.request_stream(_request(scripted_server, "x", "k"), abort=abort):
            pass

    task = asyncio.create_task(consume())
    await asyncio.sleep(0.5)
    abort.set()
    started = time.monotonic()
    with pytest.raises(E.AbortedError):
        await task
    assert time.monotonic() - started < 10  # the stream had ~25 s to go


def test_unknown_model_gets_default_limits_and_a_notice() -> None:
    limits, notice = resolve_limits("openai/some-local-thing-xyz")
    assert limits.context == 32_000 and notice and "jupyter-agent.json" in notice
    # a sentence, not raw JSON; the runtime decides which sessions are told (test_notices.py)
    assert "{" not in notice and notice.endswith(".")
    assert resolve_limits("openai/some-local-thing-xyz")[1] == notice
    configured, note = resolve_limits("openai/other-xyz", {"context": 8192, "output": 1024})
    assert (configured.context, configured.output, note) == (8192, 1024, None)
    known, _ = resolve_limits("anthropic/claude-sonnet-4-5")
    assert known.context >= 200_000
    assert provider_family("anthropic/claude-x") == "anthropic" and provider_family("openai/x") == "openai"
    assert provider_family("ollama/qwen") == "ollama"


async def test_a_long_run_of_identical_chunks_is_not_cut_or_retried(scripted_server: Any) -> None:
    """litellm's repeated-chunk guard raised after 100 equal chunks (a list of zeros is real)."""
    zeros = "0, 0" * 300  # 300 identical 4-character chunks
    scripted_server.queue(Reply(text=zeros, chunk_size=4), Reply(text="a retry"))
    events = await _collect(scripted_server)
    assert "".join(e.delta for e in events if e.type == "text-delta") == zeros
    assert events[-1].type == "finish-step" and events[-1].reason == "stop"
    assert scripted_server.pending() == 1  # no second request
    await _collect(scripted_server)  # leave the server as found
