"""Provider failures as typed errors: the words that mark an overflow, the key to set."""

from __future__ import annotations

from jupyter_agent.core.provider_errors import (
    ApiError,
    AuthError,
    RateLimitError,
    from_status,
    is_overflow_text,
)


def test_error_texts() -> None:
    assert is_overflow_text("This model's maximum context length is 8192 tokens")
    assert is_overflow_text("prompt is too long: 210000 tokens > 200000 maximum")
    assert not is_overflow_text("invalid api key")
    assert "ANTHROPIC_API_KEY" in str(AuthError.for_model("anthropic/claude-x", "bad key"))


def test_status_decides_what_is_retried() -> None:
    limited = from_status(429, "slow down", "openai/x", {"Retry-After": "3"})
    assert (
        isinstance(limited, RateLimitError) and limited.retryable and limited.headers == {"retry-after": "3"}
    )
    failed = from_status(503, "overloaded", "openai/x")
    assert isinstance(failed, ApiError) and failed.retryable
    refused = from_status(400, "bad request", "openai/x")
    assert isinstance(refused, ApiError) and not refused.retryable
