"""Our own stream events: what one model step produced, independent of litellm's chunks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from jupyter_agent.core.messages import CacheTokens, Tokens


class TextStart(BaseModel):
    type: Literal["text-start"] = "text-start"


class TextDelta(BaseModel):
    type: Literal["text-delta"] = "text-delta"
    delta: str


class TextEnd(BaseModel):
    type: Literal["text-end"] = "text-end"


class ReasoningStart(BaseModel):
    type: Literal["reasoning-start"] = "reasoning-start"


class ReasoningDelta(BaseModel):
    type: Literal["reasoning-delta"] = "reasoning-delta"
    delta: str


class ReasoningEnd(BaseModel):
    type: Literal["reasoning-end"] = "reasoning-end"


class ReasoningMetadata(BaseModel):
    """What the provider needs back with this step's reasoning (thinking blocks + signatures)."""

    type: Literal["reasoning-metadata"] = "reasoning-metadata"
    provider_metadata: dict[str, Any]


class ToolInputStart(BaseModel):
    type: Literal["tool-input-start"] = "tool-input-start"
    call_id: str
    name: str


class ToolInputDelta(BaseModel):
    type: Literal["tool-input-delta"] = "tool-input-delta"
    call_id: str
    delta: str


class ToolCall(BaseModel):
    type: Literal["tool-call"] = "tool-call"
    call_id: str
    name: str
    arguments: str
    """The raw JSON text the model produced (validated later, errors go to the model)."""
    provider_metadata: dict[str, Any] | None = None
    """litellm's ``provider_specific_fields`` of the call (Gemini thought signatures)."""


class FinishStep(BaseModel):
    type: Literal["finish-step"] = "finish-step"
    reason: str
    usage: Tokens
    cost: float | None = 0.0
    """USD for this step by litellm's cache-aware prices; None when litellm has no price."""


class AttemptRestart(BaseModel):
    """A retry after partial output: consumers drop what the failed attempt streamed."""

    type: Literal["attempt-restart"] = "attempt-restart"
    attempt: int


StreamEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ReasoningMetadata
    | ToolInputStart
    | ToolInputDelta
    | ToolCall
    | FinishStep
    | AttemptRestart
)

FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
    "length": "length",
    "max_tokens": "length",
    "content_filter": "content-filter",
}


def finish_reason(raw: str, has_calls: bool) -> str:
    """The provider's finish reason in our words; a "stop" after tool calls is "tool-calls"."""
    reason = FINISH.get(raw, "other")
    return "tool-calls" if has_calls and reason == "stop" else reason


def usage_tokens(usage: Any) -> Tokens:
    """OpenAI-shaped usage (litellm's object) as our token counts: cache reads and
    writes and reasoning are taken out of input and output, as the overflow check needs."""

    def get(obj: Any, name: str) -> int:
        value = getattr(obj, name, None) if obj is not None else None
        if value is None and isinstance(obj, dict):
            value = obj.get(name)
        return int(value or 0)

    prompt = get(usage, "prompt_tokens")
    completion = get(usage, "completion_tokens")
    cache_read = get(getattr(usage, "prompt_tokens_details", None), "cached_tokens") or get(
        usage, "cache_read_input_tokens"
    )
    cache_write = get(usage, "cache_creation_input_tokens")
    reasoning = get(getattr(usage, "completion_tokens_details", None), "reasoning_tokens")
    return Tokens(
        input=max(0, prompt - cache_read - cache_write),
        output=max(0, completion - reasoning),
        reasoning=reasoning,
        cache=CacheTokens(read=cache_read, write=cache_write),
        total=get(usage, "total_tokens") or prompt + completion,
    )
