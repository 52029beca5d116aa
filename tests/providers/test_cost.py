"""True cost: each step priced by litellm's cache-aware prices for the provider's usage;
"cost unknown" (never $0) when litellm has no price; totals per prompt and session."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AReply, AToolUse, AUsage
from cli_runner import run_cli
from scripted_server import Reply, Usage

from jupyter_agent.core.cost import CostTracker, format_cost, total
from jupyter_agent.core.messages import AssistantMessage, StepFinishPart


def _price(key: str) -> float:
    import litellm

    return float(litellm.model_cost["claude-sonnet-4-5"][key])


async def test_stored_cost_is_the_cache_aware_price(make_claude: Any, anthropic_server: Any) -> None:
    anthropic_server.queue(
        AReply(
            tool_uses=[AToolUse("bash", {"command": "echo a"})],
            usage=AUsage(input_tokens=1000, output_tokens=200, cache_creation_input_tokens=4000),
        ),
        AReply(
            text="done",
            usage=AUsage(input_tokens=300, output_tokens=100, cache_read_input_tokens=4000),
        ),
    )
    runtime = make_claude()
    sid = await runtime.prompt("go")
    inp, out = _price("input_cost_per_token"), _price("output_cost_per_token")
    write, read = _price("cache_creation_input_token_cost"), _price("cache_read_input_token_cost")
    expected = [1000 * inp + 4000 * write + 200 * out, 300 * inp + 4000 * read + 100 * out]
    history = runtime.store.messages(sid)
    steps = [p for m in history for p in m.parts if isinstance(p, StepFinishPart)]
    assert [s.cost for s in steps] == pytest.approx(expected, rel=1e-9)
    assert not any(s.cost_unknown for s in steps)
    # full input price for cache reads would be far more: the cache is what is paid for
    assert sum(expected) < (5300 + 8000) * inp + 300 * out
    assert total(history).usd == pytest.approx(sum(expected))
    assert runtime.store.session_costs()[sid].usd == pytest.approx(sum(expected))


async def test_unknown_price_is_not_zero(make_runtime: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="hi"))
    runtime = make_runtime()
    sid = await runtime.prompt("hello")
    info = runtime.store.messages(sid)[-1].info
    assert isinstance(info, AssistantMessage) and info.cost_unknown and info.cost == 0
    assert total(runtime.store.messages(sid)).text() == "cost unknown"
    assert CostTracker(runtime.store.messages(sid)).text(sid) == "cost unknown"  # not twice
    assert runtime.store.session_costs()[sid].text() == "cost unknown"


def test_cost_texts_and_running_totals() -> None:
    assert format_cost(0.0177, False) == "$0.0177"
    assert format_cost(0.0, True) == "cost unknown"
    assert format_cost(0.5, True) == "$0.5000 + unknown"
    assert format_cost(12.3456, False) == "$12.35"
    assert format_cost(0.0, False, steps=0) == "$0.00"

    def msg(mid: str, parent: str, usd: float, unknown: bool = False) -> AssistantMessage:
        return AssistantMessage(
            id=mid, session_id="s", parent_id=parent, cost=usd, cost_unknown=unknown, finish="stop"
        )

    tracker = CostTracker()
    assert tracker.text("u1") == ""
    tracker.update(msg("a1", "u1", 0.01))
    tracker.update(msg("a1", "u1", 0.02))  # the same message updated again: counted once
    tracker.update(msg("a2", "u2", 0.03))
    assert tracker.text("u2") == "$0.0300 this prompt · $0.0500 session"
    tracker.update(msg("a3", "u2", 0.0, unknown=True))
    assert tracker.text("u2") == "$0.0300 + unknown this prompt · $0.0500 + unknown session"


def test_cli_shows_cost_in_run_json_and_sessions_list(tmp_path: Path, anthropic_server: Any) -> None:
    """The session's title is a model call too (10 in, 3 out): its cost is in every session total."""
    title = 10 * _price("input_cost_per_token") + 3 * _price("output_cost_per_token")
    anthropic_server.queue(AReply(text="a", usage=AUsage(input_tokens=1000, output_tokens=100)))
    base = ["--model", "anthropic/claude-sonnet-4-5", "--api-base", anthropic_server.base_url]
    plain = run_cli(["run", *base, "x"], tmp_path, JUPYTER_AGENT_API_KEY="sk-ant-test")
    assert plain.returncode == 0, plain.stderr
    assert f"cost: $0.0045 this prompt · ${0.0045 + title:.4f} session" in plain.stderr
    assert f"${0.0045 + title:.4f}" != "$0.0045"
    anthropic_server.queue(AReply(text="b", usage=AUsage(input_tokens=1000, output_tokens=100)))
    as_json = run_cli(
        ["run", "--continue", "--json", *base, "y"], tmp_path, JUPYTER_AGENT_API_KEY="sk-ant-test"
    )
    assert as_json.returncode == 0, as_json.stderr
    last = json.loads(as_json.stdout.strip().splitlines()[-1])
    assert last["type"] == "run.cost" and last["unknown"] is False
    assert last["prompt_usd"] == pytest.approx(0.0045)
    assert last["session_usd"] == pytest.approx(0.009 + title)  # titled once, by the first prompt
    updates = [json.loads(x) for x in as_json.stdout.splitlines()]
    assert any(e["type"] == "message.updated" and e["message"].get("cost") for e in updates)
    listing = run_cli(["sessions", "list"], tmp_path)
    assert listing.returncode == 0 and f"${0.009 + title:.4f}" in listing.stdout
    db = tmp_path / ".jupyter-agent" / "sessions.db"
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM session").fetchone()[0] == 1


async def test_an_alias_is_priced_and_sized_as_its_base_model(
    make_runtime: Any, scripted_server: Any
) -> None:
    """A model name litellm cannot price (an alias on a team's LiteLLM proxy) gets the
    prices and window of the ``base_model`` configured for it."""
    import litellm

    alias, unknown = "openai/team-gpt5-alias", "openai/team-mystery-alias"
    scripted_server.queue(
        Reply(text="hi", usage=Usage(prompt_tokens=5000, completion_tokens=100, cached_tokens=4000)),
        Reply(text="hi"),
    )
    runtime = make_runtime(
        model=alias,
        models={alias: {"base_model": "openai/gpt-5"}, unknown: {"base_model": "nowhere/nothing"}},
    )
    sid = await runtime.prompt("hi")
    gpt5 = litellm.model_cost["gpt-5"]
    expected = (
        1000 * gpt5["input_cost_per_token"]
        + 4000 * gpt5["cache_read_input_token_cost"]
        + 100 * gpt5["output_cost_per_token"]
    )
    [step] = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, StepFinishPart)]
    assert step.cost == pytest.approx(expected, rel=1e-9) and not step.cost_unknown
    assert runtime.resolve_model(alias).context == 400_000  # GPT-5's window, not the 32k guess
    assert runtime.take_notices(sid, runtime.resolve_model(alias)) == []
    other = await runtime.prompt("hi", model=unknown)
    [told] = runtime.take_notices(other, runtime.resolve_model(unknown))
    assert told.startswith(f"litellm does not know nowhere/nothing, the base_model of {unknown}")
    [step] = [p for m in runtime.store.messages(other) for p in m.parts if isinstance(p, StepFinishPart)]
    assert step.cost_unknown
