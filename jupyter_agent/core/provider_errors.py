"""Provider failures as typed errors the loop, the retries and the user can act on.

Every model client raises these (the litellm adapter maps its exceptions in
``providers/litellm_client.py``; the in-process scripted model uses ``from_status``), so
the agent layer decides on retries and messages without knowing which client failed.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.core.messages import ErrorName, MessageError

OVERFLOW_MARKERS = (
    "context length",
    "context_length",
    "maximum context",
    "context window",
    "too many tokens",
    "prompt is too long",
    "input is too long",
    "exceeds the context",
    "reduce the length",
)

KEY_VARS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
}


class ProviderError(Exception):
    """Base: ``name`` maps to ``MessageError.name``; ``retryable`` drives our retries.

    Converted at one boundary, where the model is called: the step's processor makes it the
    message's ``MessageError`` (``agent/processor.py``), which the views show; the inline
    completer and the setup's test request word it themselves."""

    name: ErrorName = "unknown"
    retryable = False

    def __init__(
        self, message: str, *, status: int | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.headers = {k.lower(): v for k, v in (headers or {}).items()}

    def to_message_error(self) -> MessageError:
        metadata: dict[str, Any] = {}
        if self.headers.get("retry-after"):
            metadata["retry_after"] = self.headers["retry-after"]
        return MessageError(
            name=self.name,
            message=self.message,
            status=self.status,
            retryable=self.retryable,
            metadata=metadata,
        )

    def __str__(self) -> str:
        return self.message


class AbortedError(ProviderError):
    name: ErrorName = "aborted"


class AuthError(ProviderError):
    name: ErrorName = "auth"

    @classmethod
    def for_model(cls, model: str, detail: str, status: int | None = 401) -> AuthError:
        provider = model.split("/", 1)[0] if "/" in model else "openai"
        var = KEY_VARS.get(provider, f"{provider.upper()}_API_KEY")
        return cls(
            f"The provider rejected the API key for {model} ({detail.strip()[:200]}). Set "
            f"{var} (or JUPYTER_AGENT_API_KEY for a custom endpoint) in the environment "
            "(the kernel's, for notebooks), then run the prompt again.",
            status=status,
        )


class ApiError(ProviderError):
    name: ErrorName = "api"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message, status=status, headers=headers)
        self.retryable = retryable


class RateLimitError(ProviderError):
    name: ErrorName = "rate_limit"
    retryable = True


class ContextOverflowError(ProviderError):
    name: ErrorName = "context_overflow"


class IncompleteStreamError(ProviderError):
    """The connection dropped before the model said it was done: retry the step."""

    name: ErrorName = "api"
    retryable = True


def is_overflow_text(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in OVERFLOW_MARKERS)


def from_status(status: int, text: str, model: str, headers: dict[str, str] | None = None) -> ProviderError:
    """An HTTP error answer as a typed error: the rules every client shares (litellm's, the
    in-process test model's) once the provider's own words are known."""
    if is_overflow_text(text):
        return ContextOverflowError(text, status=status)
    if status in (401, 403):
        return AuthError.for_model(model, text, status=status)
    if status == 429:
        return RateLimitError(f"Rate limited by the provider: {text}", status=429, headers=headers)
    if status >= 500:
        return ApiError(
            f"The provider failed ({status}): {text}", status=status, retryable=True, headers=headers
        )
    return ApiError(text, status=status, retryable=False, headers=headers)
