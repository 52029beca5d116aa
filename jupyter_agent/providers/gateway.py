"""A LiteLLM proxy's refusals (a team's gateway), in words that say what to check.

The proxy answers a bad key, a key without access to a model and a spent budget with its
own error shape, ``{"error": {"message", "type", "code"}}``: ``auth_error`` (401),
``*_model_access_denied`` (401/403), ``no_db_connection`` (400 "No connected db.": a
proxy without its database takes only its master key) and ``budget_exceeded`` (422 today;
429 or 400 from older proxies). Without this, a user sees "error: No connected db." and
nothing else, and a spent budget is retried as if it were a rate limit.
"""

from __future__ import annotations

import re

from jupyter_agent.core.provider_errors import ApiError, AuthError, ProviderError

KEY_HINT = (
    "JUPYTER_AGENT_API_KEY (or the variable api_key_env names; `%agent config` shows which is "
    "read) holds the key the gateway's administrator gave you"
)
_BUDGET = re.compile(r"budget has been exceeded|exceededbudget|over budget|budget_exceeded", re.IGNORECASE)
_NO_DB = re.compile(r"no connected db", re.IGNORECASE)
_AUTH = re.compile(
    r"authentication error|invalid proxy server token|no api key passed|expired key|key is blocked",
    re.IGNORECASE,
)
_MODEL_ACCESS = re.compile(r"not allowed to access model|model_access_denied|does not have access to", re.I)


def gateway_refusal(
    status: int | None, text: str, error_type: str | None, model: str, api_base: str | None
) -> ProviderError | None:
    """The typed error for a LiteLLM proxy's auth or budget refusal, or None for anything else
    (a provider called directly is no gateway: its own errors say what they mean)."""
    if not api_base and not model.startswith("litellm_proxy/"):
        return None
    kind = (error_type or "").lower()
    where = f"The gateway at {api_base}" if api_base else "The LiteLLM proxy"
    detail = text.strip()[:300]
    if kind == "budget_exceeded" or (status in (400, 422, 429) and _BUDGET.search(text)):
        # not a rate limit: waiting a few seconds will not refill a budget
        return ApiError(
            f"{where} refused the call: the budget is spent ({detail}). Your key's, your "
            "user's or your team's budget on the gateway is used up: ask its administrator to "
            "raise it, or wait until it resets (its budget_duration).",
            status=status,
            retryable=False,
        )
    if kind == "no_db_connection" or (status == 400 and _NO_DB.search(text)):
        return AuthError(
            f"{where} did not accept the key ({detail}): a LiteLLM proxy without its database "
            f"accepts only its master key, so this key is wrong or is a virtual key. Check that {KEY_HINT}; "
            "an administrator who hands out virtual keys must connect the proxy's database (DATABASE_URL).",
            status=status,
        )
    if kind.endswith("model_access_denied") or (status in (401, 403) and _MODEL_ACCESS.search(text)):
        return AuthError(
            f"{where} does not let this key use {model} ({detail}). Pick a model the key may use, "
            "or ask the gateway's administrator to allow it for your key or team.",
            status=status,
        )
    if status in (401, 403) and (kind == "auth_error" or _AUTH.search(text)):
        return AuthError(f"{where} rejected the key ({detail}). Check that {KEY_HINT}.", status=status)
    return None


def error_type(exc: BaseException) -> str | None:
    """The ``type`` of an OpenAI-style error body (the OpenAI client keeps it as ``body``)."""
    body = getattr(exc, "body", None)
    value = body.get("type") if isinstance(body, dict) else None
    return value if isinstance(value, str) else None
