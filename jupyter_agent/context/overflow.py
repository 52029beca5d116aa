"""When the context is full (SPEC "Overflow check") and the gauge the UIs show."""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.core.messages import AssistantMessage, MessageWithParts, Tokens
from jupyter_agent.core.model import ResolvedModel

COMPACTION_BUFFER = 20_000


def max_output(model: ResolvedModel) -> int:
    """``max_tokens`` of every request: the model's output limit, capped by ``output_token_max``."""
    output = model.limits.output
    return min(output, model.output_token_max) if output else model.output_token_max


def reserved_tokens(model: ResolvedModel) -> int:
    if model.reserved is not None:
        return model.reserved
    return min(COMPACTION_BUFFER, max_output(model))


def usable(model: ResolvedModel) -> int:
    """Tokens a request may use before compaction: input limit − reserved, else context − output."""
    limits = model.limits
    if not limits.context:
        return 0
    if limits.input:
        return max(0, limits.input - reserved_tokens(model))
    return max(0, limits.context - max_output(model))


def is_overflow(tokens: Tokens, model: ResolvedModel, *, auto: bool = True) -> bool:
    if not auto or not model.limits.context:
        return False
    count = tokens.total or (tokens.input + tokens.output + tokens.cache.read + tokens.cache.write)
    return count >= usable(model)


@dataclass(frozen=True)
class Gauge:
    tokens: int
    percent: int | None
    text: str


def gauge_tokens(tokens: Tokens) -> int:
    return tokens.input + tokens.output + tokens.reasoning + tokens.cache.read + tokens.cache.write


def gauge_text(tokens: int, percent: int | None) -> str:
    """SPEC "Token accounting and the gauge": ``"<n> tokens · <p>% used"``."""
    return f"{tokens:,} tokens" + (f" · {percent}% used" if percent is not None else "")


def gauge_for(tokens: Tokens, context: int | None) -> Gauge:
    count = gauge_tokens(tokens)
    percent = round(count / context * 100) if context else None
    return Gauge(count, percent, gauge_text(count, percent))


def gauge(messages: list[MessageWithParts], context: int | None) -> Gauge:
    """The last assistant message with output decides the gauge (SPEC)."""
    for m in reversed(messages):
        info = m.info
        if isinstance(info, AssistantMessage) and info.tokens.output > 0:
            return gauge_for(info.tokens, context)
    return gauge_for(Tokens(), context)
