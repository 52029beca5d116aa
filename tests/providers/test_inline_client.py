"""Inline completions through litellm over real HTTP to the scripted server: fill-in-the-middle
reaches ``/completions`` with the suffix, other models get the chat prompt, a cancelled
suggestion closes its connection (the server sees it), failures are typed."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from scripted_server import ErrorReply, Reply, Usage

from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.completion_call import CompletionCall
from jupyter_agent.core.model_request import Connection
from jupyter_agent.core.stream_events import FinishStep, TextDelta
from jupyter_agent.providers.inline_client import complete_stream


def _call(server: Any, model: str, **kw: Any) -> CompletionCall:
    return CompletionCall(
        model=model,
        prompt='# sales: DataFrame … month (str)\nsales.groupby("',
        suffix=")\n",
        messages=[{"role": "user", "content": 'sales.groupby("<CURSOR>)'}],
        max_tokens=32,
        connection=Connection(api_base=server.base_url, api_key="sk-test"),
        **kw,
    )


async def _collect(call: CompletionCall) -> tuple[str, FinishStep]:
    events = [e async for e in complete_stream(call)]
    assert isinstance(events[-1], FinishStep)
    return "".join(e.delta for e in events if isinstance(e, TextDelta)), events[-1]


async def test_fill_in_the_middle_sends_the_suffix_to_the_completions_endpoint(scripted_server: Any) -> None:
    usage = Usage(prompt_tokens=40, completion_tokens=3)
    scripted_server.queue(Reply(text='month"', chunk_size=2, usage=usage))
    text, finish = await _collect(_call(scripted_server, "text-completion-openai/coder", stop=("\n\n",)))
    assert text == 'month"'
    request = scripted_server.requests[-1]
    assert request["path"] == "/v1/completions"
    body = request["body"]
    assert body["prompt"].endswith('sales.groupby("') and body["suffix"] == ")\n"
    assert body["stop"] == ["\n\n"] and body["max_tokens"] == 32 and "messages" not in body
    assert finish.usage.input == 40 and finish.usage.output == 3


async def test_a_chat_model_gets_the_chat_prompt(scripted_server: Any) -> None:
    scripted_server.queue(Reply(text='month"', chunk_size=3))
    text, finish = await _collect(_call(scripted_server, "openai/gpt-4o", options={"temperature": 0.1}))
    assert text == 'month"' and finish.reason == "stop"
    request = scripted_server.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["messages"][0]["content"] == 'sales.groupby("<CURSOR>)'
    assert request["body"]["temperature"] == 0.1
    assert finish.cost and finish.cost > 0  # a priced model: the cost line gets a figure


async def test_a_cancelled_suggestion_closes_its_connection(scripted_server: Any) -> None:
    routes = (("openai/test", "/v1/chat/completions"), ("text-completion-openai/x", "/v1/completions"))
    for model, path in routes:
        scripted_server.queue(Reply(text="region).count()", chunk_size=3, stall_after_chunks=2))
        first = asyncio.Event()

        async def consume(call: CompletionCall, first: asyncio.Event) -> None:
            async for event in complete_stream(call):
                if isinstance(event, TextDelta):
                    first.set()

        task = asyncio.create_task(consume(_call(scripted_server, model), first))
        await asyncio.wait_for(first.wait(), 30)
        record = scripted_server.requests[-1]
        assert record["path"] == path and "client_closed" not in record
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        deadline = time.monotonic() + 10
        while "client_closed" not in record and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert "client_closed" in record, f"{model}: the server never saw the request aborted"


async def test_failures_are_typed(scripted_server: Any) -> None:
    scripted_server.queue(ErrorReply(401, "invalid key"))
    with pytest.raises(E.AuthError):
        await _collect(_call(scripted_server, "openai/test"))
    scripted_server.queue(ErrorReply(500, "overloaded"))
    with pytest.raises(E.ProviderError):
        await _collect(_call(scripted_server, "text-completion-openai/x"))
