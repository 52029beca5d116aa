"""An in-process scripted model implementing ``ModelClient``: the fast tier's model.

Same vocabulary as ``scripted_server.py`` (``Reply``, ``ToolCall``, ``Usage``,
``ErrorReply``) and the same surface (``queue``, ``requests``, ``completions``,
``title_reply``, ``default``, ``realistic_usage``), so a test picks one by fixture:
``scripted_model`` (no HTTP, no litellm call) or ``scripted_server`` (real HTTP through
litellm). Replies become the stream events the litellm adapter makes of the server's
chunks; errors and retries go through the same ``providers`` code (``from_status``,
``retrying``). Tests of the adapter itself and end-to-end paths keep the HTTP server.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

from scripted_server import ErrorReply, Reply, ScriptedReplies, Usage, call_id_for

from jupyter_agent.core import provider_errors as E
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
from jupyter_agent.providers.litellm_client import RESERVED  # the module only; litellm loads lazily
from jupyter_agent.providers.openai_shape import finish_reason, usage_tokens
from jupyter_agent.providers.retry import MAX_RETRIES, RetryCallback, retrying


class ScriptedModel(ScriptedReplies):
    """A ``ModelClient``: queue replies with :meth:`queue`; read what the loop sent in :attr:`requests`
    (as an OpenAI-compatible server would receive them)."""

    base_url = "http://127.0.0.1:9/v1"
    """Never contacted: the runtime gets this model as its client."""
    who = "scripted model"

    def __init__(self, max_retries: int = MAX_RETRIES) -> None:
        super().__init__()
        self.max_retries = max_retries
        self.title_cost: float | None = None
        """What a title call costs (None: unpriced, like the scripted steps)."""

    # ------------------------------------------------------------ ModelClient

    def stream_with_retry(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
        abort: asyncio.Event | None = None,
        on_retry: RetryCallback | None = None,
        extra: dict[str, Any] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        return retrying(
            lambda: self.stream(model, messages, tools, max_tokens, abort, extra),
            max_retries=self.max_retries,
            on_retry=on_retry,
            abort=abort,
        )

    async def complete(
        self,
        *,
        model: str,
        messages: list[dict[str, Any]],
        api_base: str | None = None,
        api_key: str | None = None,
        max_tokens: int | None = None,
    ) -> tuple[str, float | None]:
        body = _body(model, messages, max_tokens)
        self.completions.append(
            {"path": "/v1/chat/completions", "headers": {}, "body": body, "at": time.time()}
        )
        return self.title_reply.text, self.title_cost

    async def stream(
        self,
        model: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        max_tokens: int | None,
        abort: asyncio.Event | None,
        extra: dict[str, Any] | None,
    ) -> AsyncIterator[StreamEvent]:
        body = _body(model, messages, max_tokens)
        body.update(stream=True, stream_options={"include_usage": True})
        if tools:
            body["tools"] = json.loads(json.dumps(tools))
        body.update({k: v for k, v in (extra or {}).items() if k not in RESERVED})
        self.requests.append(_record(body))
        reply = self._next()
        if isinstance(reply, ErrorReply):
            raise E.from_status(reply.status, reply.body, model, reply.headers)
        if self.realistic_usage:
            estimate = len(json.dumps(body["messages"])) // 4
            reply = replace(reply, usage=replace(reply.usage, prompt_tokens=estimate))
        async for event in _events(reply, abort):
            yield event


def _record(body: dict[str, Any]) -> dict[str, Any]:
    return {"path": "/v1/chat/completions", "headers": {}, "body": body, "at": time.time()}


def _body(model: str, messages: list[dict[str, Any]], max_tokens: int | None) -> dict[str, Any]:
    """The request as JSON, model without its provider prefix (what the server would see)."""
    body: dict[str, Any] = {"model": model.split("/", 1)[-1], "messages": json.loads(json.dumps(messages))}
    if max_tokens:
        body["max_tokens"] = max_tokens
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
    yield FinishStep(
        reason=finish_reason(finish, bool(reply.tool_calls)), usage=_usage(reply.usage), cost=None
    )


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


def _usage(u: Usage) -> Any:
    """The usage chunk as litellm hands it over (attributes, nested details)."""
    return usage_tokens(
        SimpleNamespace(
            prompt_tokens=u.prompt_tokens,
            completion_tokens=u.completion_tokens,
            total_tokens=u.prompt_tokens + u.completion_tokens,
            prompt_tokens_details=SimpleNamespace(cached_tokens=u.cached_tokens),
            completion_tokens_details=SimpleNamespace(reasoning_tokens=u.reasoning_tokens),
        )
    )
