"""Model limits and capabilities: litellm's model map → config → a conservative default."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

DEFAULT_CONTEXT = 32_000
DEFAULT_OUTPUT = 4_096


class ModelLimits(BaseModel):
    context: int
    input: int | None = None
    output: int | None = None


def model_info(model: str) -> dict[str, Any] | None:
    """litellm's entry for ``model`` (None for models it does not know)."""
    from jupyter_agent.providers.litellm_client import litellm

    try:
        info = litellm().get_model_info(model)
    except Exception:
        return None
    return dict(info) if info else None


def resolve_limits(model: str, configured: dict[str, Any] | None = None) -> tuple[ModelLimits, str | None]:
    """Limits for ``model``; explicit config wins over litellm; unknown → default + notice
    (every time: the runtime decides which sessions have been told)."""
    configured = {k: v for k, v in (configured or {}).items() if v}
    info = model_info(model) or {}
    context = configured.get("context") or info.get("max_input_tokens") or info.get("max_tokens")
    output = configured.get("output") or info.get("max_output_tokens")
    input_limit = configured.get("input")
    if context:
        return ModelLimits(context=int(context), input=input_limit, output=output), None
    notice = unknown_window_notice(model)
    return ModelLimits(context=DEFAULT_CONTEXT, input=input_limit, output=output or DEFAULT_OUTPUT), notice


def unknown_window_notice(model: str) -> str:
    """What a user reads when litellm does not know ``model``: a sentence, with the fix."""
    return (
        f"jupyter-agent does not know the context window of {model}, so it assumes "
        f"{DEFAULT_CONTEXT:,} tokens (and {DEFAULT_OUTPUT:,} for an answer). If the model takes "
        f"more or less, set its limit.context and limit.output under models → {model} in "
        "jupyter-agent.json (see docs/configuration.md)."
    )


def supports_vision(model: str) -> bool:
    from jupyter_agent.providers.litellm_client import litellm

    try:
        return bool(litellm().supports_vision(model=model))
    except Exception:
        return False


def provider_family(model: str) -> str:
    """anthropic | openai | bedrock | vertex | ollama | other — from the model string alone."""
    lowered = model.lower()
    provider = lowered.split("/", 1)[0] if "/" in lowered else ""
    if provider in ("anthropic",) or (not provider and lowered.startswith("claude")):
        return "anthropic"
    if provider == "bedrock":
        return "bedrock"
    if provider.startswith("vertex"):
        return "vertex"
    if provider in ("ollama", "ollama_chat"):
        return "ollama"
    if provider in ("openai", "azure") or (not provider and lowered.startswith(("gpt", "o1", "o3", "o4"))):
        return "openai"
    return "other"


def missing_keys(model: str) -> list[str]:
    """Provider key variables litellm needs for ``model`` and cannot find (API bases excluded)."""
    from jupyter_agent.providers.litellm_client import litellm

    try:
        found = litellm().validate_environment(model=model)
    except Exception:  # unknown providers: let the request say what is wrong
        return []
    return [k for k in found.get("missing_keys", []) if not k.endswith("_API_BASE")]
