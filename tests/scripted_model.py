"""An in-process scripted model implementing ``ModelClient``: the fast tier's model.

Same vocabulary as ``scripted_server.py`` (``Reply``, ``ToolCall``, ``Usage``,
``ErrorReply``) and the same surface (``queue``, ``requests``, ``completions``,
``title_reply``, ``default``, ``realistic_usage``), so a test picks one by fixture:
``scripted_model`` (no HTTP, no litellm call) or ``scripted_server`` (real HTTP through
litellm). Replies become the stream events the litellm adapter makes of the server's
chunks, errors the typed errors it raises (``from_status``); like every client it tries
once, and the agent's ``RetryingModel`` retries. It reads only ``core/`` (the request, the
events, the errors): nothing of the adapter. Tests of the adapter itself and end-to-end
paths keep the HTTP server; ``tests/providers/test_scripted_parity.py`` keeps the two alike.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from scripted_server import ErrorReply, Reply, ScriptedReplies, Usage, call_id_for

from jupyter_agent.core import provider_errors as E
from jupyter_agent.core.completion_call import CompletionCall
from jupyter_agent.core.messages import CacheTokens, Tokens
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.stream_events import (
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputStart,
)

FINISH = {"stop": "stop", "tool_calls": "tool-calls", "length": "length", "content_filter": "content-filter"}
"""What the adapter calls the finish reasons a script sends (anything else: "other")."""


class ScriptedModel(ScriptedReplies):
    """A ``ModelClient``: queue replies with :meth:`queue`; read what the loop sent in :attr:`requests`
    (as an OpenAI-compatible server would receive them)."""

    base_url = "http://127.0.0.1:9/v1"
    """Never contacted: the runtime gets this model as its client."""
    who = "scripted model"

    def __init__(self) -> None:
        super().__init__()
        self.title_cost: float | None = None
        """What a title call costs (None: unpriced, like the scripted steps)."""
        self.completion_cost: float | None = None
        """What an inline completion costs (None: unpriced)."""

    # ------------------------------------------------------------ ModelClient

    async def request(self, request: ModelRequest) -> tuple[str, float | None]:
        self.completions.append(_record(_body(request)))
        return self.title_reply.text, self.title_cost

    async def request_stream(
        self, request: ModelRequest, *, abort: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        body = _body(request)
        body.update(stream=True, stream_options={"include_usage": True})
        if request.tools:
            body["tools"] = json.loads(json.dumps(list(request.tools)))
        body.update(request.call_options())
        self.requests.append(_record(body))
        reply = self._next()
        if isinstance(reply, ErrorReply):
            raise E.from_status(reply.status, reply.body, request.model, reply.headers)
        if self.realistic_usage:
            estimate = len(json.dumps(body["messages"])) // 4
            reply = replace(reply, usage=replace(reply.usage, prompt_tokens=estimate))
        async for event in _events(reply, abort):
            yield event

    async def complete_stream(self, call: CompletionCall) -> AsyncIterator[StreamEvent]:
        """An inline completion: the reply's text as deltas, then its finish (``CompletionClient``).
        Recorded with both shapes the request has (fill-in-the-middle and chat)."""
        body: dict[str, Any] = {
            "model": call.model.split("/", 1)[-1],
            "prompt": call.prompt,
            "suffix": call.suffix,
            "messages": json.loads(json.dumps(list(call.messages))),
            "max_tokens": call.max_tokens,
            "stream": True,
        }
        self.requests.append(_record(body, "/v1/inline"))
        reply = self._next()
        if isinstance(reply, ErrorReply):
            raise E.from_status(reply.status, reply.body, call.model, reply.headers)
        async for event in _events(reply, None):
            if isinstance(event, FinishStep):
                event = event.model_copy(update={"cost": self.completion_cost})
            if isinstance(event, (TextDelta, FinishStep)):
                yield event


def _record(body: dict[str, Any], path: str = "/v1/chat/completions") -> dict[str, Any]:
    return {"path": path, "headers": {}, "body": body, "at": time.time()}


def _body(request: ModelRequest) -> dict[str, Any]:
    """The request as JSON, model without its provider prefix (what the server would see)."""
    body: dict[str, Any] = {
        "model": request.model.split("/", 1)[-1],
        "messages": json.loads(json.dumps(list(request.messages))),
    }
    if request.max_tokens:
        body["max_tokens"] = request.max_tokens
    return body


async def _events(reply: Reply, abort: asyncio.Event | None) -> AsyncIterator[StreamEvent]:
    """The events of one reply, chunk by chunk as the server would send them."""
    chunks = _chunked(reply)
    open_kind: str | None = None
    for n, (kind, *rest) in enumerate(chunks):
        if abort is not None and abort.is_set():
            raise E.AbortedError("Stopped by the user.")
        if reply.disconnect_after_chunks is not None and n >= reply.disconnect_after_chunks:
            raise E.IncompleteStreamError("The stream broke off: Connection lost")
        if kind == "reasoning":
            if open_kind != "reasoning":
                open_kind = "reasoning"
                yield ReasoningStart()
            yield ReasoningDelta(delta=rest[0])
        elif kind == "text":
            if open_kind != "text":
                if open_kind == "reasoning":
                    yield ReasoningEnd()
                open_kind = "text"
                yield TextStart()
            yield TextDelta(delta=rest[0])
        elif kind == "call":
            yield ToolInputStart(call_id=rest[0], name=rest[1])
        elif kind == "args":
            yield ToolInputDelta(call_id=rest[0], delta=rest[1])
        if reply.delay_per_chunk:
            await asyncio.sleep(reply.delay_per_chunk)
    if reply.finish_reason is None:  # litellm notices the missing finish while reading
        raise E.IncompleteStreamError("The model's answer broke off before it finished (no finish reason).")
    if open_kind == "text":
        yield TextEnd()
    elif open_kind == "reasoning":
        yield ReasoningEnd()
    for n, call in enumerate(reply.tool_calls):
        yield ToolCall(call_id=call_id_for(n, call), name=call.name, arguments=call.arguments)
    finish = reply.finish_reason
    if finish == "auto":
        finish = "tool_calls" if reply.tool_calls else "stop"
    reason = FINISH.get(finish, "other")
    if reason == "stop" and reply.tool_calls:
        reason = "tool-calls"
    yield FinishStep(reason=reason, usage=_usage(reply.usage), cost=None)


def _chunked(reply: Reply) -> list[tuple[str, ...]]:
    """The server's chunk sequence (role, reasoning, text, calls, finish, usage) as tuples."""
    size = max(1, reply.chunk_size)
    out: list[tuple[str, ...]] = [("role",)]
    out += [("reasoning", reply.reasoning[i : i + size]) for i in range(0, len(reply.reasoning), size)]
    out += [("text", reply.text[i : i + size]) for i in range(0, len(reply.text), size)]
    for n, call in enumerate(reply.tool_calls):
        call_id = call_id_for(n, call)
        out.append(("call", call_id, call.name))
        out += [("args", call_id, call.arguments[i : i + size]) for i in range(0, len(call.arguments), size)]
    if reply.finish_reason is not None:
        out.append(("finish",))
    out.append(("usage",))
    return out


def _usage(u: Usage) -> Tokens:
    """The usage chunk in our counts: cache reads come out of the input, reasoning out of
    the output (as the adapter counts them)."""
    return Tokens(
        input=max(0, u.prompt_tokens - u.cached_tokens),
        output=max(0, u.completion_tokens - u.reasoning_tokens),
        reasoning=u.reasoning_tokens,
        cache=CacheTokens(read=u.cached_tokens, write=0),
        total=u.prompt_tokens + u.completion_tokens,
    )
