"""A run that failed shows "cost unknown", never $0.00 (the provider may have charged for it):
in `jupyter-agent sessions list`, `%agent sessions`, the CLI's cost line and the gauge."""

from __future__ import annotations

from typing import Any

from scripted_server import ErrorReply, Reply

from jupyter_agent.core import cost


async def test_a_failed_run_is_cost_unknown_everywhere(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(ErrorReply(401, "invalid api key"))
    runtime = make_runtime(retries=0)
    sid = await runtime.prompt("hello")
    window = runtime.recorder(sid).window()
    assert window[-1].info.error is not None
    listed = runtime.session_costs()[sid]  # `sessions list`, `%agent sessions`
    assert listed.text() == "cost unknown", listed
    assert cost.prompt_cost(window).text() == "cost unknown"  # the CLI's "cost:" line
    assert cost.pair_text(cost.prompt_cost(window), runtime.recorder(sid).spent()) == "cost unknown"
    assert cost.CostTracker(window).text(window[-1].info.parent_id) == "cost unknown"  # the gauge


async def test_a_failed_step_counts_as_a_step_of_unknown_cost(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="fine"), ErrorReply(500, "upstream broke"))
    runtime = make_runtime(retries=0)
    sid = await runtime.prompt("one")
    before = runtime.session_costs()[sid].steps
    await runtime.prompt("two", session_id=sid)
    shown = runtime.session_costs()[sid]
    assert shown.unknown and shown.steps == before + 1 and "$0.00" not in shown.text()


def test_an_empty_session_still_costs_nothing() -> None:
    assert cost.CostTotal().text() == "$0.00"
