"""The fields of an OpenAI-shaped answer (litellm's normal form for every provider) in our
words: its finish reason and its usage."""

from __future__ import annotations

from typing import Any

from jupyter_agent.core.messages import CacheTokens, Tokens

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
