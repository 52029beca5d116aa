"""Model limits: litellm's fields mapped to context / input / output as OpenCode has them."""

from __future__ import annotations

from typing import Any

from scripted_server import Reply, Usage

from jupyter_agent.context.overflow import gauge, usable
from jupyter_agent.core.model import ModelLimits, ResolvedModel
from jupyter_agent.providers.models import limits_from_litellm, model_info, resolve_limits


def test_gpt5_window_is_input_plus_output() -> None:
    limits, _ = resolve_limits("openai/gpt-5")
    assert limits == ModelLimits(context=400_000, input=272_000, output=128_000)
    # OpenCode: usable = input - reserved (min(20k, min(output, 32k)))
    assert usable(ResolvedModel(name="m", limits=limits)) == 252_000


def test_anthropic_max_input_is_the_window() -> None:
    limits, _ = resolve_limits("anthropic/claude-sonnet-4-5")
    assert limits == ModelLimits(context=200_000, input=None, output=64_000)
    assert usable(ResolvedModel(name="m", limits=limits)) == 200_000 - 32_000


def test_other_models_keep_litellm_window() -> None:
    assert resolve_limits("gpt-4o")[0] == ModelLimits(context=128_000, output=16_384)
    assert resolve_limits("o3")[0] == ModelLimits(context=200_000, output=100_000)
    pro = limits_from_litellm("gpt-5-pro", model_info("gpt-5-pro") or {})
    assert pro is not None and pro.context == 400_000 and pro.input is None


def test_config_wins_and_a_configured_window_drops_litellm_input() -> None:
    limits, note = resolve_limits("openai/gpt-5", {"context": 100_000})
    assert note is None and limits == ModelLimits(context=100_000, input=None, output=128_000)
    limits, _ = resolve_limits("openai/gpt-5", {"output": 8_000})
    assert limits == ModelLimits(context=400_000, input=272_000, output=8_000)


def test_legacy_max_tokens_only() -> None:
    assert limits_from_litellm("x", {"max_tokens": 8192}) == ModelLimits(context=8192)
    assert limits_from_litellm("x", {}) is None


async def test_gpt5_gauge_and_max_tokens_through_the_server(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.model = "openai/gpt-5"
    scripted_server.queue(Reply(text="done", usage=Usage(prompt_tokens=99_990, completion_tokens=10)))
    runtime = make_runtime(model="openai/gpt-5")
    sid = await runtime.prompt("hello")
    body = scripted_server.requests[0]["body"]
    assert body.get("max_tokens", body.get("max_completion_tokens")) == 32_000
    g = gauge(runtime.store.messages(sid), runtime.resolve_model().context)
    assert g.tokens == 100_000 and g.percent == 25  # of the 400k window, as OpenCode shows it
    assert g.text == "100,000 tokens · 25% used"
