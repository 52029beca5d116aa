"""When the context is full (SPEC "Overflow check") and the gauge the UIs show."""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.core.messages import AssistantMessage, MessageWithParts, Tokens

OUTPUT_TOKEN_MAX = 32_000
COMPACTION_BUFFER = 20_000


def max_output(output_limit: int | None, output_token_max: int = OUTPUT_TOKEN_MAX) -> int:
    return min(output_limit, output_token_max) if output_limit else output_token_max


def reserved_tokens(
    reserved: int | None, output_limit: int | None, output_token_max: int = OUTPUT_TOKEN_MAX
) -> int:
    if reserved is not None:
        return reserved
    return min(COMPACTION_BUFFER, max_output(output_limit, output_token_max))


def usable(
    context: int,
    input_limit: int | None,
    output_limit: int | None,
    reserved: int | None = None,
    output_token_max: int = OUTPUT_TOKEN_MAX,
) -> int:
    """Tokens a request may use before compaction: input limit − reserved, else context − output."""
    if not context:
        return 0
    if input_limit:
        return max(0, input_limit - reserved_tokens(reserved, output_limit, output_token_max))
    return max(0, context - max_output(output_limit, output_token_max))


def is_overflow(
    tokens: Tokens,
    *,
    context: int,
    input_limit: int | None = None,
    output_limit: int | None = None,
    reserved: int | None = None,
    auto: bool = True,
    output_token_max: int = OUTPUT_TOKEN_MAX,
) -> bool:
    if not auto or not context:
        return False
    count = tokens.total or (tokens.input + tokens.output + tokens.cache.read + tokens.cache.write)
    return count >= usable(context, input_limit, output_limit, reserved, output_token_max)


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
