"""Model limits and capabilities: litellm's model map → config → a conservative default."""

from __future__ import annotations

from typing import Any

from jupyter_agent.context.to_provider import is_anthropic_family
from jupyter_agent.core.model import ModelLimits
from jupyter_agent.providers.litellm_client import litellm

DEFAULT_CONTEXT = 32_000
DEFAULT_OUTPUT = 4_096


def model_info(model: str) -> dict[str, Any] | None:
    """litellm's entry for ``model`` (None for models it does not know)."""
    try:
        info = litellm().get_model_info(model)
    except Exception:
        return None
    return dict(info) if info else None


def limits_from_litellm(model: str, info: dict[str, Any]) -> ModelLimits | None:
    """litellm's fields mapped once to OpenCode's ``limit.{context, input, output}``.

    - ``max_output_tokens`` → ``output`` (litellm's legacy ``max_tokens`` only when it is
      missing; that field means output for most models and input for others).
    - ``max_input_tokens`` is the whole window for most models (Anthropic, Bedrock,
      Vertex, Gemini, GPT-4o/4.1, o-series): ``context`` = it, no separate input limit.
    - GPT-5-family models on OpenAI/Azure have a window larger than their input limit
      (GPT-5: 400k window, 272k input, 128k output): there ``input`` = ``max_input_tokens``
      and ``context`` = input + output, as OpenCode's model list has them.
    """
    window = info.get("max_input_tokens")
    output = info.get("max_output_tokens") or None
    if not window:
        legacy = info.get("max_tokens")
        return ModelLimits(context=int(legacy), output=output) if legacy and output is None else None
    window, output = int(window), (int(output) if output else None)
    if output and _separate_input_limit(model, info, window, output):
        return ModelLimits(context=window + output, input=window, output=output)
    return ModelLimits(context=window, output=output)


def _separate_input_limit(model: str, info: dict[str, Any], window: int, output: int) -> bool:
    provider = str(info.get("litellm_provider") or "")
    name = model.lower().rsplit("/", 1)[-1]
    return (
        provider in ("openai", "azure")
        and name.startswith("gpt-5")
        and "chat" not in name
        and window + output <= GPT5_WINDOW
    )


GPT5_WINDOW = 400_000


def resolve_limits(model: str, configured: dict[str, Any] | None = None) -> tuple[ModelLimits, str | None]:
    """Limits for ``model``; explicit config wins over litellm; unknown → default + notice
    (every time: the runtime decides which sessions have been told).

    A configured ``context`` replaces litellm's window and input limit together (an
    input limit larger than the configured window would make no sense).
    """
    configured = {k: int(v) for k, v in (configured or {}).items() if v}
    known = limits_from_litellm(model, model_info(model) or {})
    if known is not None:
        context = configured.get("context", known.context)
        input_limit = (
            configured.get("input") if "context" in configured else configured.get("input", known.input)
        )
        output = configured.get("output", known.output)
        return ModelLimits(context=context, input=input_limit, output=output), None
    if "context" in configured:
        return ModelLimits(
            context=configured["context"], input=configured.get("input"), output=configured.get("output")
        ), None
    notice = unknown_window_notice(model)
    output = configured.get("output") or DEFAULT_OUTPUT
    return ModelLimits(context=DEFAULT_CONTEXT, input=configured.get("input"), output=output), notice


def register_alias(model: str, base: str) -> str | None:
    """Give ``model`` litellm's prices and limits of ``base``, so an alias on a proxy gets a
    true cost and window; the notice to show when litellm does not know ``base``."""
    lm = litellm()
    entry = lm.model_cost.get(base) or lm.model_cost.get(base.split("/", 1)[-1])
    if entry is None:
        return (
            f"litellm does not know {base}, the base_model of {model} in jupyter-agent.json, so "
            f"{model} has no price (cost unknown). Use a model name from litellm's list, "
            "e.g. anthropic/claude-sonnet-4-5."
        )
    if lm.model_cost.get(model) != entry:
        lm.register_model({model: dict(entry)})
    return None


def unknown_window_notice(model: str) -> str:
    """What a user reads when litellm does not know ``model``: a sentence, with the fix."""
    return (
        f"jupyter-agent does not know the context window of {model}, so it assumes "
        f"{DEFAULT_CONTEXT:,} tokens (and {DEFAULT_OUTPUT:,} for an answer). If the model takes "
        f"more or less, set its limit.context and limit.output under models → {model} in "
        "jupyter-agent.json (see docs/configuration.md)."
    )


def supports_vision(model: str) -> bool:
    try:
        return bool(litellm().supports_vision(model=model))
    except Exception:
        return False


def provider_family(model: str) -> str:
    """anthropic | openai | bedrock | vertex | ollama | other — from the model string alone."""
    lowered = model.lower()
    provider = lowered.split("/", 1)[0] if "/" in lowered else ""
    if provider == "anthropic" or (not provider and is_anthropic_family(lowered)):
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


def media_in_tool_results(model: str) -> bool:
    """litellm's chat format: only Anthropic-style APIs take images inside tool results."""
    return provider_family(model) in ("anthropic", "bedrock", "vertex")


def missing_keys(model: str) -> list[str]:
    """Provider key variables litellm needs for ``model`` and cannot find (API bases excluded)."""
    try:
        found = litellm().validate_environment(model=model)
    except Exception:  # unknown providers: let the request say what is wrong
        return []
    return [k for k in found.get("missing_keys", []) if not k.endswith("_API_BASE")]
