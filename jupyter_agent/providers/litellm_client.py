"""The only module that imports litellm: stream a step, map chunks and errors.

litellm is imported lazily (≈2 s) with the local cost map, so loading the extension
stays fast and nothing fetches the cost map over the network. Completeness is judged
from the raw chunks: a stream cut mid-way has no finish reason and is retried.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Awaitable
from typing import Any, TypeVar

from jupyter_agent.context.tokens import tokenizer_dir
from jupyter_agent.core import provider_errors as E
from jupyter_agent.core import unicode
from jupyter_agent.core.messages import Tokens
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.core.redaction import redact_value, secret_values
from jupyter_agent.core.stream_events import (
    FinishStep,
    ReasoningDelta,
    ReasoningEnd,
    ReasoningMetadata,
    ReasoningStart,
    StreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCall,
    ToolInputDelta,
    ToolInputStart,
)
from jupyter_agent.logs import route_library_logs
from jupyter_agent.providers.gateway import error_type, gateway_refusal
from jupyter_agent.providers.idle_watch import IdleTimeout, IdleWatch
from jupyter_agent.providers.local_server import unreachable
from jupyter_agent.providers.openai_shape import finish_reason, usage_tokens

REPEATED_CHUNK_LIMIT = 1 << 62
STREAM_IDLE_TIMEOUT_S = 120.0
"""Seconds without a byte from the provider before the attempt fails (``stream_idle_timeout``)."""
log = logging.getLogger(__name__)
T = TypeVar("T")


class _Silent(Exception):
    """Nothing came for the idle timeout; never reaches a front end (made a ``ProviderError``)."""


if sys.version_info >= (3, 11):

    async def _within(awaitable: Awaitable[T], seconds: float) -> T:
        """``await awaitable``, or ``_Silent`` after ``seconds`` (the request; a stream's
        chunks use one ``IdleWatch`` instead)."""
        try:
            async with asyncio.timeout(seconds) as scope:
                return await awaitable
        except TimeoutError:
            if scope.expired():
                raise _Silent() from None
            raise

else:  # pragma: no cover (Python 3.10)

    async def _within(awaitable: Awaitable[T], seconds: float) -> T:
        try:
            return await asyncio.wait_for(awaitable, seconds)
        except asyncio.TimeoutError:
            raise _Silent() from None


def _stopped_sending(seconds: float, started: bool) -> E.IncompleteStreamError:
    what = "stopped sending" if started else "sent nothing"
    return E.IncompleteStreamError(
        f"The provider {what} for {seconds:g} s (stream_idle_timeout); the answer is requested again."
    )


def prepare_environment() -> None:
    """Offline-safe settings that must be in place before litellm is imported."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    if "TIKTOKEN_CACHE_DIR" not in os.environ and (folder := tokenizer_dir()) is not None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)


_imported = threading.Event()


def imported() -> bool:
    """litellm is loaded: calling it cannot wait on its (seconds-long) import."""
    return _imported.is_set()


def litellm() -> Any:
    prepare_environment()
    # litellm takes about 2 s to import: it loads on the first model call
    import litellm as module

    module.suppress_debug_info = True
    module.telemetry = False
    # litellm raises on ~100 identical chunks in a row ("the model is repeating") and the
    # retry throws the partial text away; real answers repeat tokens (a list of zeros).
    # Doom loops are caught per step by the processor instead.
    setattr(module, "REPEATED_STREAMING_CHUNK_LIMIT", REPEATED_CHUNK_LIMIT)  # noqa: B010 (Final in stubs)

    route_library_logs()  # litellm adds its own stderr handler at import: reroute it
    _imported.set()
    return module


FIRST_CALL_MODULES = (
    "litellm.litellm_core_utils.default_encoding",  # its cost estimate loads a tokenizer (~0.3 s)
    "anyio._backends._asyncio",
)
"""What litellm's first request imports (internal names: a litellm upgrade may move them)."""


def warm_up() -> None:
    """Import litellm and what its first request loads, ahead of the first prompt (called
    from a background thread)."""
    litellm()
    for name in FIRST_CALL_MODULES:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _usage(model: str, usage: Any) -> tuple[Tokens, float | None]:
    return usage_tokens(usage), step_cost(model, usage)


def step_cost(model: str, usage: Any) -> float | None:
    """USD for one call by litellm's prices, cache reads and writes at their own rates;
    None when litellm has no price for ``model`` (shown as "cost unknown", never $0)."""
    if usage is None:
        return None
    try:
        p, c = litellm().cost_per_token(model=model, usage_object=usage)
    except Exception:
        return None
    return float(p + c)


def map_exception(exc: BaseException, model: str, api_base: str | None = None) -> E.ProviderError:
    """litellm's exception zoo → our typed errors, keeping status and retry headers."""
    if isinstance(exc, E.ProviderError):
        return exc
    lm = litellm()
    original = getattr(exc, "original_exception", None)
    if isinstance(exc, getattr(lm, "MidStreamFallbackError", ())) and isinstance(original, Exception):
        exc = original  # litellm wraps a mid-stream failure for its router; we want the cause

    local = unreachable(exc, model, api_base)
    if local is not None:
        return local
    if "credentials encoded in url" in str(exc).lower():
        return E.ApiError(
            "api_base holds a user name and password (https://user:password@host): they cannot be "
            "sent together with the API key, so nothing was sent. Remove them from the URL and give "
            "the key with JUPYTER_AGENT_API_KEY (or api_key_env).",
            retryable=False,
        )
    status = getattr(exc, "status_code", None)
    headers: dict[str, str] = {}
    raw = getattr(exc, "litellm_response_headers", None) or getattr(
        getattr(exc, "response", None), "headers", None
    )
    if raw:
        try:
            headers = {str(k).lower(): str(v) for k, v in dict(raw).items()}
        except Exception:
            headers = {}
    text = provider_text(str(getattr(exc, "message", None) or exc))
    refusal = gateway_refusal(status, text, error_type(exc), model, api_base)  # a team's LiteLLM proxy
    if refusal is not None:
        return refusal
    if isinstance(exc, lm.ContextWindowExceededError) or E.is_overflow_text(text):
        return E.ContextOverflowError(text, status=status)
    if isinstance(exc, lm.AuthenticationError):
        return E.AuthError.for_model(model, text, status=status)
    if isinstance(exc, lm.RateLimitError):
        return E.RateLimitError(f"Rate limited by the provider: {text}", status=429, headers=headers)
    if isinstance(exc, (lm.APIConnectionError, lm.Timeout)) and status in (None, 500):
        return E.ApiError(
            f"Could not reach the model server: {text}", status=status, retryable=True, headers=headers
        )
    if isinstance(exc, (lm.InternalServerError, lm.ServiceUnavailableError)):
        return E.ApiError(
            f"The provider failed ({status}): {text}", status=status, retryable=True, headers=headers
        )
    if status is not None:
        return E.from_status(status, text, model, headers)
    if isinstance(exc, (ConnectionError, OSError)):
        return E.IncompleteStreamError(f"Connection lost: {exc}")
    return E.ApiError(text, status=None, retryable=False, headers=headers)


_LITELLM_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*|\w+Error:\s*|\w+Exception\s*-\s*)+")


def provider_text(text: str) -> str:
    """The provider's own words without litellm's class-name prefixes
    ("litellm.ServiceUnavailableError: ServiceUnavailableError: OpenAIException - Overloaded")."""
    return _LITELLM_PREFIX.sub("", text.strip()) or text


def _broken_stream(exc: Exception, model: str, finish: str | None) -> E.ProviderError:
    """A failure while reading an open stream: a dropped connection (however litellm's
    stream wrapper words it) is an incomplete step, retried from the start."""
    mapped = map_exception(exc, model)
    if (
        finish is None
        and type(mapped) is E.ApiError
        and (not mapped.retryable or mapped.status in (None, 500, 503))
    ):
        return E.IncompleteStreamError(f"The stream broke off: {mapped.message}")
    return mapped


class LiteLLMClient:
    """A ``ModelClient`` through ``litellm.acompletion``: each call tried once (the agent
    retries, ``agent/retrying.py``), litellm's chunks and exceptions made ours."""

    def __init__(self, idle_timeout: float = STREAM_IDLE_TIMEOUT_S) -> None:
        self.idle_timeout = idle_timeout

    async def request_stream(
        self, request: ModelRequest, *, abort: asyncio.Event | None = None
    ) -> AsyncIterator[StreamEvent]:
        """One streamed answer as our events; failures as typed ``ProviderError``s."""
        lm = litellm()
        model, api_base = request.model, request.connection.api_base
        kwargs = _request(request)
        kwargs.update(stream=True, stream_options={"include_usage": True})
        try:
            response = await _within(lm.acompletion(**kwargs), self.idle_timeout)
        except _Silent:
            raise _stopped_sending(self.idle_timeout, started=False) from None
        except Exception as exc:
            raise map_exception(exc, model, api_base) from exc
        page = await _html_page(response)
        if page is not None:
            await _close(response)
            where = api_base or "the endpoint"
            raise E.ApiError(
                f"{where} answered with an HTML page{page}, not a model stream: a login page or a "
                "proxy stands in between, or api_base points at a web page. Check api_base (or sign "
                "in to the proxy) and run the prompt again.",
                status=200,
                retryable=False,
            )
        # the chunk loop is inline, not a generator of its own: every layer costs each chunk
        open_kind: str | None = None
        calls: dict[str, dict[str, Any]] = {}
        thinking = _ThinkingBlocks()
        at_index: dict[int, str] = {}  # stream index → id of the call now streaming there
        finish: str | None = None
        usage: Any = None
        iterator = response.__aiter__()
        watch = IdleWatch(self.idle_timeout)
        try:
            while True:
                if abort is not None and abort.is_set():
                    await _close(response)
                    raise E.AbortedError("Stopped by the user.")
                try:
                    chunk = await watch.next(iterator)
                except StopAsyncIteration:
                    break
                except IdleTimeout:
                    await _close(response)
                    raise _stopped_sending(self.idle_timeout, started=True) from None
                except Exception as exc:
                    raise _broken_stream(exc, model, finish) from exc
                if found := _read(chunk, "usage"):
                    usage = found
                for choice in _read(chunk, "choices") or []:
                    delta = _read(choice, "delta")
                    # a "\ud800" in the provider's JSON is a lone surrogate: text the store cannot keep
                    reasoning = _text(_read(delta, "reasoning_content") if delta else None)
                    text = _text(_read(delta, "content") if delta else None)
                    signed = thinking.add(_read(delta, "thinking_blocks") if delta else None)
                    if reasoning:
                        if open_kind != "reasoning":
                            if open_kind == "text":
                                yield TextEnd()
                            open_kind = "reasoning"
                            yield ReasoningStart()
                        yield ReasoningDelta(delta=reasoning)
                    if signed:
                        # stored as soon as a block is signed: a Stop while the tool input that
                        # follows still streams must not lose what Anthropic needs back
                        yield ReasoningMetadata(provider_metadata={"thinking_blocks": thinking.result()})
                    if text:
                        if open_kind != "text":
                            if open_kind == "reasoning":
                                yield ReasoningEnd()
                            open_kind = "text"
                            yield TextStart()
                        yield TextDelta(delta=text)
                    for call in (_read(delta, "tool_calls") or []) if delta else []:
                        fn = getattr(call, "function", None)
                        entry, new = _call_entry(calls, at_index, call)
                        if new:
                            entry["name"] = (getattr(fn, "name", None) or "") if fn else ""
                            yield ToolInputStart(call_id=entry["id"], name=entry["name"])
                        fields = getattr(call, "provider_specific_fields", None)
                        if fields:
                            entry["fields"] = {**entry.get("fields", {}), **dict(fields)}
                        args = (getattr(fn, "arguments", None) or "") if fn else ""
                        if args:
                            entry["args"] += args
                            yield ToolInputDelta(call_id=entry["id"], delta=args)
                    if found := _read(choice, "finish_reason"):
                        finish = found
        finally:
            watch.close()
        if open_kind == "text":
            yield TextEnd()
        elif open_kind == "reasoning":
            yield ReasoningEnd()
        if thinking.blocks:
            yield ReasoningMetadata(provider_metadata={"thinking_blocks": thinking.result()})
        for entry in calls.values():
            yield ToolCall(
                call_id=entry["id"],
                name=entry["name"],
                arguments=entry["args"],
                provider_metadata=entry.get("fields") or None,
            )
        if finish is not None and _synthetic_finish(response):
            finish = None
        if finish is None:
            raise E.IncompleteStreamError(
                "The model's answer broke off before it finished (no finish reason)."
            )
        reason = finish_reason(finish, bool(calls))
        tokens, cost = _usage(model, usage)
        yield FinishStep(reason=reason, usage=tokens, cost=cost)

    async def request(self, request: ModelRequest) -> tuple[str, float | None]:
        """One answer in one piece (titles) and its cost (None: no price); errors are typed
        like ``request_stream``."""
        model = request.model
        try:
            response = await _within(litellm().acompletion(**_request(request)), self.idle_timeout)
        except _Silent:
            raise _stopped_sending(self.idle_timeout, started=False) from None
        except Exception as exc:
            raise map_exception(exc, model, request.connection.api_base) from exc
        text = str(response.choices[0].message.content or "")
        return text, step_cost(model, getattr(response, "usage", None))


def _read(obj: Any, name: str) -> Any:
    """``getattr(obj, name, None)`` for litellm's pydantic chunks without pydantic's slow path:
    litellm deletes unset fields and keeps most in ``__pydantic_extra__``, so a plain getattr
    raises (and catches) an AttributeError several times per chunk."""
    if getattr(type(obj), "__pydantic_fields__", None) is None:
        return getattr(obj, name, None)  # not a pydantic model (another SDK's objects, a stub)
    values = obj.__dict__
    if name in values:
        return values[name]
    extra = obj.__pydantic_extra__
    if extra and name in extra:
        return extra[name]
    return getattr(obj, name, None) if _on_class(type(obj), name) else None


_class_attrs: dict[tuple[type, str], bool] = {}


def _on_class(cls: type, name: str) -> bool:
    """``name`` is a class attribute (a property, a method) rather than a field; cached."""
    key = (cls, name)
    found = _class_attrs.get(key)
    if found is None:
        found = _class_attrs[key] = any(name in vars(base) for base in cls.__mro__)
    return found


def _request(request: ModelRequest) -> dict[str, Any]:
    """litellm's arguments for ``request``; retries are ours, not litellm's.
    The last net for secrets: notebook context or a system prompt could still carry one."""
    found = secret_values()
    messages = request.messages
    kwargs: dict[str, Any] = {
        "model": request.model,
        # a copy either way: the loop reuses its list between steps
        "messages": redact_value(list(messages), found) if found else list(messages),
        "num_retries": 0,
    }
    if request.connection.api_base:
        kwargs["api_base"] = request.connection.api_base
    if request.connection.api_key:
        kwargs["api_key"] = request.connection.api_key
    if request.max_tokens:
        kwargs["max_tokens"] = request.max_tokens
    kwargs.update(request.call_options())
    if request.tools:
        kwargs["tools"] = list(request.tools)
    if kwargs.get("tool_choice") == "auto" and not _takes_tool_choice(request.model):
        del kwargs["tool_choice"]  # "auto" is every provider's default: leave it out where refused
    return kwargs


@functools.lru_cache(maxsize=64)
def _takes_tool_choice(model: str) -> bool:
    """litellm forwards ``tool_choice`` for ``model`` (it refuses the call where it does not)."""
    try:
        supported = litellm().get_supported_openai_params(model=model)
    except Exception:  # a model litellm cannot place: send only what every provider takes
        return False
    return bool(supported) and "tool_choice" in supported


class _ThinkingBlocks:
    """Anthropic thinking as litellm streams it: text pieces and the signature arrive in
    separate deltas of one block (same ``index``); redacted blocks arrive whole."""

    def __init__(self) -> None:
        self.blocks: list[dict[str, Any]] = []
        self._at: dict[Any, dict[str, Any]] = {}

    def add(self, pieces: Any) -> bool:
        """Take one delta's pieces; True when a thinking block got its signature."""
        signed = False
        for piece in pieces or []:
            block = dict(piece) if isinstance(piece, dict) else dict(getattr(piece, "__dict__", {}))
            kind = block.get("type")
            index = block.get("index")
            if kind == "redacted_thinking":
                self.blocks.append({"type": kind, "data": block.get("data", "")})
                continue
            if kind != "thinking":
                continue
            current = self._at.get(index) if index is not None else None
            if current is None:
                current = {"type": "thinking", "thinking": "", "signature": None}
                self.blocks.append(current)
                if index is not None:
                    self._at[index] = current
            current["thinking"] += block.get("thinking") or ""
            if block.get("signature"):
                current["signature"] = block["signature"]
                signed = True
        return signed

    def result(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in b.items() if v is not None} for b in self.blocks]


def _call_entry(
    calls: dict[str, dict[str, Any]], at_index: dict[int, str], call: Any
) -> tuple[dict[str, Any], bool]:
    """The call a tool-call delta belongs to, and whether it starts a new one.

    Calls are told apart by id: some servers send several calls at the same stream index,
    and gluing their arguments together would lose both. A delta without an id continues
    the call last seen at its index.
    """
    index = getattr(call, "index", None) or 0
    call_id = getattr(call, "id", None)
    current = at_index.get(index)
    if call_id and call_id != current and call_id not in calls:
        calls[call_id] = {"id": call_id, "name": "", "args": ""}
        at_index[index] = call_id
        return calls[call_id], True
    if call_id and call_id in calls:
        at_index[index] = call_id
        return calls[call_id], False
    if current is None:
        current = f"call_{index}" if f"call_{index}" not in calls else f"call_{index}_{len(calls)}"
        calls[current] = {"id": current, "name": "", "args": ""}
        at_index[index] = current
        return calls[current], True
    return calls[current], False


def _text(value: Any) -> str | None:
    return unicode.scrub(value) if isinstance(value, str) and value else None


async def _html_page(response: Any) -> str | None:
    """`` ("Sign in")`` — the page's title — when the provider answered with HTML, else None."""
    headers = (getattr(response, "_hidden_params", None) or {}).get("additional_headers") or {}
    kind = str(headers.get("llm_provider-content-type") or headers.get("content-type") or "").lower()
    if not kind.startswith(("text/html", "application/xhtml")):
        return None
    raw = getattr(getattr(response, "completion_stream", None), "response", None)
    try:
        body = (await raw.aread())[:20_000].decode("utf-8", errors="replace") if raw is not None else ""
    except Exception:  # the page is named by its type alone
        body = ""
    title = re.search(r"<title[^>]*>([^<]{1,120})</title>", body, re.IGNORECASE)
    return f' ("{" ".join(title.group(1).split())}")' if title else ""


def _synthetic_finish(response: Any) -> bool:
    """litellm fills in finish_reason "stop" when a cut stream just ends; its wrapper
    remembers whether the provider really sent one."""
    missing = object()
    received = getattr(response, "received_finish_reason", missing)
    if received is missing:
        return False
    return received is None and getattr(response, "intermittent_finish_reason", None) is None


async def _close(response: Any) -> None:
    for name in ("aclose", "close"):
        fn = getattr(response, name, None)
        if fn is not None:
            try:
                result = fn()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:  # the answer is complete or abandoned; a failed close loses nothing
                log.debug("closing the response stream failed", exc_info=True)
            return
