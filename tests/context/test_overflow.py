"""SPEC "Overflow check" and the gauge."""

from __future__ import annotations

from helpers import assistant, user

from jupyter_agent.context.overflow import gauge, is_overflow, usable
from jupyter_agent.core.messages import CacheTokens, Tokens
from jupyter_agent.core.model import ModelLimits, ResolvedModel


def _model(context: int, input: int | None = None, output: int | None = None, **kw: int) -> ResolvedModel:
    return ResolvedModel(name="m", limits=ModelLimits(context=context, input=input, output=output), **kw)


def test_usable_with_and_without_input_limit() -> None:
    assert usable(_model(200_000, None, 64_000)) == 200_000 - 32_000
    assert usable(_model(200_000, None, 8_000)) == 192_000
    assert usable(_model(400_000, 272_000, 128_000)) == 272_000 - 20_000
    assert usable(_model(400_000, 272_000, 128_000, reserved=1_000)) == 271_000
    assert usable(_model(200_000, None, 64_000, output_token_max=1_000)) == 199_000
    assert usable(_model(0)) == 0


def test_overflow_uses_greater_or_equal() -> None:
    model = _model(100_000, None, 10_000)
    limit = usable(model)  # 90,000
    assert is_overflow(Tokens(total=limit), model)
    assert not is_overflow(Tokens(total=limit - 1), model)
    summed = Tokens(input=80_000, output=5_000, cache=CacheTokens(read=4_000, write=1_000))
    assert is_overflow(summed, model)


def test_overflow_disabled() -> None:
    big = Tokens(total=10**9)
    assert not is_overflow(big, _model(100_000), auto=False)
    assert not is_overflow(big, _model(0))


def test_gauge_text_and_no_limit() -> None:
    u = user()
    a = assistant(
        u, "x", tokens=Tokens(input=40_000, output=5_000, reasoning=678, cache=CacheTokens(read=0, write=0))
    )
    later = assistant(u, "", tokens=Tokens(input=99, output=0))  # no output: ignored
    g = gauge([u, a, later], 200_000)
    assert g.tokens == 45_678 and g.percent == 23 and g.text == "45,678 tokens · 23% used"
    assert gauge([u, a], None).text == "45,678 tokens"
