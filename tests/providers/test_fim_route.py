"""Which models get fill-in-the-middle and through which litellm route (no request made)."""

from __future__ import annotations

import pytest

from jupyter_agent.providers.inline_client import FimRoute, fim_route


@pytest.mark.parametrize(
    ("model", "api_base", "route"),
    [
        (
            "codestral/codestral-latest",
            None,
            FimRoute("text-completion-codestral/codestral-latest", None, "CODESTRAL_API_KEY"),
        ),
        (
            "mistral/codestral-2501",
            None,
            FimRoute(
                "text-completion-codestral/codestral-2501",
                "https://api.mistral.ai/v1/fim/completions",
                "MISTRAL_API_KEY",
            ),
        ),
        (
            "deepseek/deepseek-chat",
            None,
            FimRoute(
                "text-completion-openai/deepseek-chat", "https://api.deepseek.com/beta", "DEEPSEEK_API_KEY"
            ),
        ),
        (
            "text-completion-codestral/codestral-latest",
            None,
            FimRoute("text-completion-codestral/codestral-latest"),
        ),
        (
            "text-completion-codestral/codestral-latest",
            "http://gw:4000/v1",
            FimRoute("text-completion-codestral/codestral-latest", "http://gw:4000/v1/fim/completions"),
        ),
        (
            "text-completion-openai/qwen2.5-coder",
            "http://localhost:11434/v1",
            FimRoute("text-completion-openai/qwen2.5-coder", "http://localhost:11434/v1"),
        ),
        (
            "text-completion-inception/mercury-coder",
            None,
            FimRoute("text-completion-inception/mercury-coder"),
        ),
    ],
)
def test_fill_in_the_middle_where_the_provider_has_it(
    model: str, api_base: str | None, route: FimRoute
) -> None:
    assert fim_route(model, api_base) == route


@pytest.mark.parametrize(
    ("model", "api_base"),
    [
        ("openai/gpt-4.1-mini", None),
        ("anthropic/claude-haiku-4-5", None),
        ("mistral/mistral-small-latest", None),
        ("deepseek/deepseek-reasoner", None),  # DeepSeek's FIM is its chat model's
        ("codestral/codestral-latest", "http://gateway:4000"),  # what a gateway speaks is unknown
        ("openai/test", "http://127.0.0.1:8000/v1"),
        ("gpt-4o-mini", None),
    ],
)
def test_every_other_model_gets_the_chat_prompt(model: str, api_base: str | None) -> None:
    assert fim_route(model, api_base) is None
