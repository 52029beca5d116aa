"""The in-process scripted model streams what the litellm client makes of the same script
over real HTTP: the fast tier's loop tests see the events, usage and errors the adapter
produces, so the two stay interchangeable behind ``make_runtime``."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_model import ScriptedModel
from scripted_server import ErrorReply, Reply, Scripted, ToolCall, Usage

from jupyter_agent.agent.ports import ModelClient
from jupyter_agent.agent.retrying import RetryingModel
from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.providers.litellm_client import LiteLLMClient

SCRIPTS: dict[str, Scripted | list[Scripted]] = {
    "text": Reply(text="hello world, in a few chunks", chunk_size=5),
    "reasoning then text": Reply(reasoning="let me think about it", text="the answer"),
    "text and two calls": Reply(
        text="reading both",
        tool_calls=[ToolCall("read", '{"filePath": "a.py"}', id="c1"), ToolCall("grep", '{"pattern": "x"}')],
        chunk_size=3,
    ),
    "malformed arguments": Reply(tool_calls=[ToolCall("read", '{"filePath": "a.py"', id="c2")]),
    "cut by length": Reply(text="a long answer that", finish_reason="length"),
    "usage details": Reply(text="ok", usage=Usage(1000, 300, reasoning_tokens=50, cached_tokens=200)),
    "overflow": ErrorReply(400, "This model's maximum context length is 32000 tokens."),
    "bad request": ErrorReply(400, "invalid request: something the provider dislikes"),
    "bad key": ErrorReply(401, "invalid key"),
    "retried after a 500": [ErrorReply(500, "overloaded", {"retry-after-ms": "10"}), Reply(text="ok")],
    "rate limited twice": [ErrorReply(429, "slow down", {"retry-after-ms": "5"})] * 2,
    "cut off, then restarted": [
        Reply(text="partial answer that breaks", chunk_size=4, disconnect_after_chunks=3),
        Reply(text="whole answer"),
    ],
    "no finish reason": [Reply(text="never finished", finish_reason=None), Reply(text="finished")],
}


async def _run(client: ModelClient, model: str, api_base: str) -> tuple[list[dict[str, Any]], Any]:
    """What ``client`` streams, retried by the agent's wrapper as the loop retries it."""
    events: list[dict[str, Any]] = []
    request = ModelRequest(
        model=model,
        messages=[{"role": "user", "content": "hi"}],
        connection=Connection(api_base=api_base, api_key="sk-test"),
    )
    try:
        async for e in RetryingModel(client, max_retries=1).request_stream(request):
            events.append(e.model_dump(exclude={"cost"}))
    except E.ProviderError as exc:
        return events, (type(exc), exc.status, exc.retryable, exc.message)
    return events, None


@pytest.mark.parametrize("name", list(SCRIPTS))
async def test_same_script_same_events(scripted_server: Any, name: str) -> None:
    script = SCRIPTS[name]
    replies = script if isinstance(script, list) else [script]
    model = ScriptedModel()
    model.queue(*replies)
    scripted_server.queue(*replies)
    over_http = await _run(LiteLLMClient(), scripted_server.model, scripted_server.base_url)
    in_process = await _run(model, model.model, model.base_url)
    assert in_process == over_http
    assert model.requests[0]["body"]["messages"] == scripted_server.requests[0]["body"]["messages"]
    assert model.requests[0]["body"]["model"] == scripted_server.requests[0]["body"]["model"]
