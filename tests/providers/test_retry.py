"""Retry delays per SPEC: 2 s × 2 capped at 30 s, headers honoured."""

from __future__ import annotations

from email.utils import formatdate

from jupyter_agent.core.provider_errors import AuthError, is_overflow_text
from jupyter_agent.providers.retry import retry_delay_ms


def test_backoff_without_headers() -> None:
    assert [retry_delay_ms(n) for n in range(1, 7)] == [2000, 4000, 8000, 16000, 30000, 30000]


def test_headers_win() -> None:
    assert retry_delay_ms(1, {"retry-after-ms": "250"}) == 250
    assert retry_delay_ms(3, {"Retry-After": "7"}) == 7000
    now = 1_800_000_000.0
    assert retry_delay_ms(1, {"retry-after": formatdate(now + 12, usegmt=True)}, now=now) == 12_000


def test_error_texts() -> None:
    assert is_overflow_text("This model's maximum context length is 8192 tokens")
    assert is_overflow_text("prompt is too long: 210000 tokens > 200000 maximum")
    assert not is_overflow_text("invalid api key")
    assert "ANTHROPIC_API_KEY" in str(AuthError.for_model("anthropic/claude-x", "bad key"))
