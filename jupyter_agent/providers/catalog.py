"""What the setup offers: litellm's providers, each provider's chat models, its key variable.

Read from litellm's bundled model map (never fetched): the lists are a help for picking,
not a limit, so the setup also takes any model string typed by hand.
"""

from __future__ import annotations

import os

from jupyter_agent.providers.litellm_client import litellm

COMPATIBLE = "openai-compatible"
"""The setup's own entry: any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, a
LiteLLM proxy) at a base URL; its models are ``openai/<name>``."""
FIRST = ("anthropic", "openai", "gemini", "ollama_chat", "mistral", "groq", "deepseek", "openrouter", "xai")
"""Shown first: the providers most people pick; the rest follow alphabetically."""
CHAT_MODES = ("chat", "responses", None)


def providers() -> list[str]:
    """Providers with chat models in litellm's map (popular ones first), then ``COMPATIBLE``."""
    known = set(litellm().models_by_provider)
    rest = sorted(p for p in known if p not in FIRST and _chat_models(p))
    return [*(p for p in FIRST if p in known or p == "ollama_chat"), *rest, COMPATIBLE]


def _chat_models(provider: str) -> list[str]:
    cost = litellm().model_cost
    names = litellm().models_by_provider.get(provider) or ()
    out = []
    for name in names:
        mode = (cost.get(name) or cost.get(f"{provider}/{name}") or {}).get("mode")
        if mode in CHAT_MODES:
            out.append(name if name.startswith(f"{provider}/") else f"{provider}/{name}")
    return out


def models(provider: str) -> list[str]:
    """``provider``'s chat models as litellm model strings (``anthropic/claude-…``), newest
    names first within a family is not known here: sorted by name."""
    if provider == COMPATIBLE:
        return []
    if provider == "ollama_chat":
        provider_models = _chat_models("ollama") or _chat_models("ollama_chat")
        return sorted(m.replace("ollama/", "ollama_chat/", 1) for m in provider_models)
    return sorted(set(_chat_models(provider)))


def key_names(model: str) -> list[str]:
    """The environment variables holding ``model``'s key: the missing ones litellm names,
    else the set one (``ANTHROPIC_API_KEY``); [] for providers that need none (Ollama)."""
    try:
        found = litellm().validate_environment(model=model)
    except Exception:  # unknown providers: nothing to name
        return []
    missing = [k for k in found.get("missing_keys", []) if not k.endswith("_API_BASE")]
    if missing:
        return missing
    provider = model.split("/", 1)[0] if "/" in model else ""
    guess = f"{provider.upper()}_API_KEY"
    return [guess] if provider and os.environ.get(guess) else []


def provider_of(model: str) -> str:
    """The setup's provider for ``model`` (``anthropic/claude-…`` → ``anthropic``)."""
    return model.split("/", 1)[0] if "/" in model else "openai"
