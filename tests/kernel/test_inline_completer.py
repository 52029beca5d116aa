"""The kernel's inline completer without a kernel process: debounce, cancel, busy, on/off, cost.

A real runtime over a temporary store, IPython's own event manager for "a cell runs", and
the in-process scripted model (``scripted_model``) as the completion model: what the
request carried is what the model was sent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from IPython.core.events import EventManager, available_events
from scripted_server import ErrorReply, Reply

from jupyter_agent.core.cost import COMPLETIONS
from jupyter_agent.kernel.agent import KernelAgent
from jupyter_agent.kernel.inline_completer import InlineAsk, InlineCompleter, completer, pause_s
from jupyter_agent.magics.subcommands import complete_switch

DEBOUNCE_MS = 40


class Sink:
    """One front end's connection: what the completer told it."""

    def __init__(self) -> None:
        self.deltas: dict[str, str] = {}
        self.ended: dict[str, tuple[str, str]] = {}
        self.finished = asyncio.Event()

    def delta(self, request_id: str, text: str) -> None:
        self.deltas[request_id] = self.deltas.get(request_id, "") + text

    def done(self, request_id: str, reason: str, message: str = "") -> None:
        self.ended[request_id] = (reason, message)
        self.finished.set()

    async def wait(self, request_id: str) -> tuple[str, str]:
        for _ in range(3000):  # 30 s and more: a loaded machine is slow, never wrong
            if request_id in self.ended:
                return self.ended[request_id]
            await asyncio.sleep(0.01)
        raise AssertionError(f"{request_id} never ended: {self.ended}")


@pytest.fixture
def kernel(make_runtime: Any, scripted_model: Any) -> Any:
    """A KernelAgent over a fake shell whose namespace holds ``sales``."""
    shell = SimpleNamespace(
        user_ns={"sales": pd.DataFrame({"month": ["jan"], "region": ["north"], "revenue": [1.5]})},
        user_ns_hidden={},
        execution_count=3,
    )
    shell.events = EventManager(shell, available_events)
    agent = KernelAgent(shell)

    def build(**config: Any) -> InlineCompleter:
        completion = {"debounce_ms": DEBOUNCE_MS, **config.pop("completion", {})}
        agent._runtime = make_runtime(completion=completion, **config)
        return completer(agent)

    return SimpleNamespace(agent=agent, shell=shell, build=build, model=scripted_model)


def ask(request_id: str, prefix: str = 'sales.groupby("', **kw: Any) -> InlineAsk:
    return InlineAsk(request_id=request_id, prefix=prefix, suffix="", **kw)


async def test_a_pause_asks_once_with_the_frames_columns_and_counts_the_cost(kernel: Any) -> None:
    inline = kernel.build()
    kernel.model.completion_cost = 0.0004
    kernel.model.queue(Reply(text='month").revenue.sum()', chunk_size=4))
    sink = Sink()
    for n, typed in enumerate(("sales.gr", "sales.groupby(", 'sales.groupby("')):
        inline.request(sink, ask(f"r{n}", typed))  # typing: each request replaces the last
    assert await sink.wait("r2") == ("done", "")
    assert sink.ended["r0"][0] == sink.ended["r1"][0] == "cancelled"
    assert len(kernel.model.requests) == 1  # the model was asked once, after the pause
    sent = json.dumps(kernel.model.requests[0]["body"])
    assert all(word in sent for word in ("month", "region", "revenue", "DataFrame"))
    assert sink.deltas["r2"] == 'month").revenue.sum()'
    runtime = kernel.agent.runtime
    session = kernel.agent.current_session()
    assert runtime.completion_costs(session).usd == pytest.approx(0.0004)
    assert runtime.completion_costs(session).steps == 1
    # its own line: not in the session's totals, which budgets read
    assert runtime.call_costs(session) == {} and runtime.session_costs() == {}
    assert runtime.store.call_costs(session, kind=COMPLETIONS)[session].steps == 1


async def test_typing_on_cancels_the_model_call_in_flight(kernel: Any) -> None:
    inline = kernel.build()
    kernel.model.queue(Reply(text="x" * 400, chunk_size=1, delay_per_chunk=0.01), Reply(text="y"))
    sink = Sink()
    inline.request(sink, ask("r1"))
    for _ in range(3000):
        if sink.deltas.get("r1"):
            break
        await asyncio.sleep(0.01)
    assert sink.deltas.get("r1")  # streaming
    inline.request(sink, ask("r2", 'sales.groupby("m'))
    assert await sink.wait("r1") == ("cancelled", "")
    assert await sink.wait("r2") == ("done", "")
    assert len(sink.deltas["r1"]) < 400
    session = kernel.agent.current_session()
    assert kernel.agent.runtime.completion_costs(session).steps == 1  # the aborted one reported no usage


async def test_an_explicit_cancel_during_the_pause_costs_no_model_call(kernel: Any) -> None:
    inline = kernel.build()
    sink = Sink()
    inline.request(sink, ask("r1"))
    inline.cancel(sink, "other")  # a cancel for an older request changes nothing
    await asyncio.sleep(0)
    inline.cancel(sink, "r1")
    assert await sink.wait("r1") == ("cancelled", "")
    await asyncio.sleep(DEBOUNCE_MS / 1000 * 2)
    assert kernel.model.requests == []


@pytest.mark.parametrize("cell_type", ["markdown", "raw"])
async def test_no_request_for_markdown_or_raw_cells(kernel: Any, cell_type: str) -> None:
    inline = kernel.build()
    sink = Sink()
    inline.request(sink, ask("r1", "# Sales by ", cell_type=cell_type))
    assert sink.ended["r1"] == ("skipped", f"no completion in {cell_type} cells")
    await asyncio.sleep(DEBOUNCE_MS / 1000 * 2)
    assert kernel.model.requests == []


async def test_off_by_config_by_the_switch_and_by_the_admin(kernel: Any, tmp_path: Path) -> None:
    inline = kernel.build(completion={"enabled": False})
    sink = Sink()
    inline.request(sink, ask("r1"))
    assert sink.ended["r1"][0] == "off" and not inline.state().enabled
    assert inline.set_enabled(True) == "Inline completion is on in this kernel."
    assert inline.state().enabled
    told: list[Any] = []
    inline.watchers.append(told.append)
    assert inline.set_enabled(False) == "Inline completion is off in this kernel."
    assert told[-1].enabled is False and told[-1].reason == "turned off"
    inline.request(sink, ask("r2"))
    assert sink.ended["r2"] == ("off", "inline completion is off: turned off")

    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"completion": {"enabled": False}, "locked": ["completion.enabled"]}))
    monkey = pytest.MonkeyPatch()
    monkey.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(admin))
    try:
        locked = kernel.build(completion={"enabled": True})
        reply = locked.set_enabled(True)
        assert reply.startswith(f"Inline completion is set by the administrator in {admin}")
        state = locked.state()
        assert not state.enabled and "administrator" in state.reason
    finally:
        monkey.undo()
    assert kernel.model.requests == []


async def test_on_by_default_only_with_a_model(kernel: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    inline = kernel.build()
    assert inline.state().enabled
    kernel.agent.runtime.config.model = None
    state = inline.state()
    assert not state.enabled and state.reason == "no model is configured"


async def test_no_request_while_a_cell_runs_and_none_for_what_a_cell_ran_past(kernel: Any) -> None:
    inline = kernel.build()
    sink = Sink()
    kernel.shell.events.trigger("pre_run_cell", None)  # an async cell lets requests in
    inline.request(sink, ask("r1"))
    assert sink.ended["r1"] == ("busy", "the kernel is running a cell")
    kernel.shell.events.trigger("post_run_cell", None)

    inline.request(sink, ask("r2"))  # asked, then a cell ran during the pause
    kernel.shell.execution_count += 1
    assert await sink.wait("r2") == ("stale", "a cell ran since the request")

    inline.request(sink, ask("r3"))  # a cell starting cancels what is in flight
    kernel.shell.events.trigger("pre_run_cell", None)
    assert await sink.wait("r3") == ("cancelled", "")
    kernel.shell.events.trigger("post_run_cell", None)
    assert kernel.model.requests == []


async def test_a_model_error_is_one_line_for_the_front_end(kernel: Any) -> None:
    inline = kernel.build()
    kernel.model.queue(ErrorReply(401, "invalid key"))
    sink = Sink()
    inline.request(sink, ask("r1"))
    reason, message = await sink.wait("r1")
    assert reason == "error" and "\n" not in message and message


async def test_two_front_ends_do_not_cancel_each_other(kernel: Any) -> None:
    inline = kernel.build()
    kernel.model.queue(Reply(text="a"), Reply(text="b"))
    left, right = Sink(), Sink()
    inline.request(left, ask("r1"))
    inline.request(right, ask("r1", "sales.gr"))
    assert await left.wait("r1") == ("done", "")
    assert await right.wait("r1") == ("done", "")
    assert len(kernel.model.requests) == 2


def test_a_front_end_that_waited_for_the_pause_is_not_made_to_wait_again() -> None:
    assert pause_s(300, 300) == 0 and pause_s(300, 5000) == 0
    assert pause_s(300, 0) == pytest.approx(0.3) and pause_s(300, 100) == pytest.approx(0.2)


async def test_complete_says_whether_it_is_on_and_why_the_last_suggestion_failed(kernel: Any) -> None:
    inline = kernel.build()
    assert complete_switch(kernel.agent, None).startswith(
        f"Inline completion is on (debounce {DEBOUNCE_MS} ms)"
    )
    kernel.model.queue(ErrorReply(429, "slow down\nplease"))
    sink = Sink()
    inline.request(sink, ask("r1"))
    await sink.wait("r1")
    said = complete_switch(kernel.agent, None)
    assert said.splitlines()[1].startswith("The latest suggestion failed: ") and "slow down please" in said
    assert complete_switch(kernel.agent, "off") == "Inline completion is off in this kernel."
    assert complete_switch(kernel.agent, None) == "Inline completion is off: turned off."


async def test_a_model_that_ignores_max_tokens_is_cut_off(kernel: Any) -> None:
    inline = kernel.build(completion={"max_tokens": 8})
    kernel.model.queue(Reply(text="x = 1\n" * 5_000, chunk_size=50))
    sink = Sink()
    inline.request(sink, ask("r1"))
    assert await sink.wait("r1") == ("done", "")
    assert 0 < len(sink.deltas["r1"]) <= 8 * 4 * 2


async def test_front_ends_hear_when_a_cell_changed_the_settings(kernel: Any) -> None:
    inline = kernel.build()
    told: list[Any] = []
    inline.watchers.append(told.append)
    kernel.shell.events.trigger("post_run_cell", None)
    assert [s.enabled for s in told] == [True]  # the first state it tells
    kernel.shell.events.trigger("post_run_cell", None)
    assert len(told) == 1  # nothing changed: nothing said
    kernel.agent.runtime.config.completion.enabled = False  # as a re-read file would say
    kernel.shell.events.trigger("post_run_cell", None)
    assert [s.enabled for s in told] == [True, False] and told[-1].reason == "turned off"
