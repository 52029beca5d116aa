"""Inline completions through litellm: fill-in-the-middle where the provider has it, else chat.

``fim_route`` decides from the model string alone (no request, no network): the
text-completion providers litellm sends a ``suffix`` for (Codestral's FIM endpoint,
OpenAI-style ``/completions`` as DeepSeek, Ollama and Inception serve it), and the chat
names of models whose provider also has such an endpoint (``codestral/…``,
``mistral/codestral-…``, ``deepseek/deepseek-chat``). Every other model gets the chat
prompt. A cancelled stream closes its HTTP response, so the provider sees the request
aborted (and stops charging for it), not just ignored.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any

from jupyter_agent.core import unicode
from jupyter_agent.core.completion_call import CompletionCall
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.redaction import redact, secret_values
from jupyter_agent.core.stream_events import FinishStep, StreamEvent, TextDelta
from jupyter_agent.providers.litellm_client import (
    _close,
    _read,
    _request,
    imported,
    litellm,
    map_exception,
    step_cost,
)
from jupyter_agent.providers.openai_shape import finish_reason, usage_tokens

TEXT_COMPLETION = ("text-completion-codestral", "text-completion-openai", "text-completion-inception")
"""litellm providers whose text completion sends ``suffix``: fill-in-the-middle as named."""
FIRST_BYTE_S = 20.0
"""A suggestion that has not started by then is of no use to anyone typing."""
FIM_OPTIONS = ("temperature", "top_p", "seed", "extra_headers", "extra_body", "api_version")
"""The configured model options a text completion takes (``thinking`` and the like are chat's)."""


@dataclass(frozen=True)
class FimRoute:
    model: str
    """The litellm model string called (a text-completion provider)."""
    api_base: str | None = None
    key_env: str | None = None
    """Where the key is read when none is configured (the chat provider's own variable)."""


def fim_route(model: str, api_base: str | None = None) -> FimRoute | None:
    """How ``model`` fills in the middle, or None when it only chats. With ``api_base``
    (a gateway, a local server) only an explicit text-completion model is sent there as FIM:
    what else that server speaks is unknown."""
    provider, _, name = model.partition("/")
    if not name:
        return None
    if provider in TEXT_COMPLETION:
        if provider == "text-completion-codestral" and api_base:
            # litellm posts to Codestral's api_base as it is: the FIM path must be on it
            base = api_base.rstrip("/")
            api_base = base if base.endswith("/fim/completions") else f"{base}/fim/completions"
        return FimRoute(model, api_base)
    if api_base:
        return None
    if provider == "codestral":
        return FimRoute(f"text-completion-codestral/{name}", None, "CODESTRAL_API_KEY")
    if provider == "mistral" and name.startswith("codestral"):
        return FimRoute(
            f"text-completion-codestral/{name}",
            "https://api.mistral.ai/v1/fim/completions",
            "MISTRAL_API_KEY",
        )
    if provider == "deepseek" and "reasoner" not in name:  # DeepSeek's FIM is a beta of its chat model
        return FimRoute(f"text-completion-openai/{name}", "https://api.deepseek.com/beta", "DEEPSEEK_API_KEY")
    return None


class LiteLLMCompletionClient:
    """``complete_stream`` through litellm (the agent's ``CompletionClient``), tried once."""

    def complete_stream(self, call: CompletionCall) -> AsyncGenerator[StreamEvent, None]:
        return complete_stream(call)


async def complete_stream(call: CompletionCall) -> AsyncGenerator[StreamEvent, None]:
    """The suggestion as ``TextDelta``s, then ``FinishStep`` with its usage and cost; typed
    ``ProviderError``s on failure."""
    if not imported():
        # the first suggestion may come before the warm-up imported litellm (seconds):
        # the import waits in a thread, the kernel's event loop stays free
        await asyncio.to_thread(litellm)
    lm = litellm()
    route = fim_route(call.model, call.connection.api_base)
    priced = route.model if route else call.model
    try:
        if route is not None:
            opening = lm.atext_completion(**_fim_arguments(call, route))
        else:
            opening = lm.acompletion(**_chat_arguments(call))
        response = await asyncio.wait_for(opening, FIRST_BYTE_S)
    except Exception as exc:
        raise map_exception(exc, call.model, call.connection.api_base) from exc
    finished = False
    finish: str | None = None
    usage: Any = None
    try:
        async for chunk in response:
            if found := _read(chunk, "usage"):
                usage = found
            for choice in _read(chunk, "choices") or []:
                text = _read(choice, "text") if route else _read(_read(choice, "delta"), "content")
                if isinstance(text, str) and text:
                    yield TextDelta(delta=unicode.scrub(text))
                finish = _read(choice, "finish_reason") or finish
        finished = True
    except Exception as exc:
        raise map_exception(exc, call.model, call.connection.api_base) from exc
    finally:
        if not finished:  # cancelled (the user typed on) or broken: the provider sees it closed
            await _close(response)
    yield FinishStep(
        reason=finish_reason(finish or "stop", False),
        usage=usage_tokens(usage),
        cost=step_cost(priced, usage),
    )


def _fim_arguments(call: CompletionCall, route: FimRoute) -> dict[str, Any]:
    secrets = secret_values()  # the last net, as for every request
    key = call.connection.api_key or (os.environ.get(route.key_env) if route.key_env else None)
    kwargs: dict[str, Any] = {
        **{k: v for k, v in call.options.items() if k in FIM_OPTIONS},
        "model": route.model,
        "prompt": redact(call.prompt, secrets),
        "suffix": redact(call.suffix, secrets),
        "max_tokens": call.max_tokens,
        "stream": True,
        "stream_options": {"include_usage": True},
        "num_retries": 0,
    }
    if route.api_base:
        kwargs["api_base"] = route.api_base
    if key:
        kwargs["api_key"] = key
    if call.stop:
        kwargs["stop"] = list(call.stop)
    return kwargs


def _chat_arguments(call: CompletionCall) -> dict[str, Any]:
    request = ModelRequest(
        model=call.model,
        messages=call.messages,
        max_tokens=call.max_tokens,
        options=call.options,
        connection=call.connection,
    )
    kwargs = _request(request)
    kwargs.update(stream=True, stream_options={"include_usage": True})
    if call.stop:
        kwargs["stop"] = list(call.stop)
    return kwargs
