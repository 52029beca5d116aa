"""Issue 40 item 5: the side panel's state comes from the run's events, never a guess.

Each run, whatever started it (a cell's ``%compact``, the panel, a Fix), publishes
``RunStarted`` and ``RunFinished``; the panel's busy state, its picker's busy marks and its
gauge's window follow them. Read off the wire the panel receives (``panel_harness.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from panel_harness import Panel, kernel_agent
from scripted_server import ErrorReply, Reply, Usage

from jupyter_agent.core.events import RunFinished, RunStarted
from jupyter_agent.ui.live_gauge import LiveGauge


def statuses(panel: Panel, since: int = 0) -> list[tuple[str, str]]:
    return [(m["state"], m.get("text", "")) for m in panel.all("status", since)]


async def test_a_cells_compact_leaves_the_panel_idle(tmp_path: Path, scripted_model: Any) -> None:
    """`%compact` in a cell runs the compaction on its own (no panel, no `notify_panels`): the
    open panel said "Working… ■ Stop" until the user pressed Stop."""
    scripted_model.queue(Reply(text="An answer."), Reply(text="## Summary\nwhat happened"))
    agent = kernel_agent(tmp_path, scripted_model)
    sid = await agent.runtime.prompt("hello", session_id=agent.current_session())
    panel = Panel(agent)
    mark = len(panel.seen)
    await agent.runtime.compact(sid)  # what `compact_now` runs for `%compact`
    shown = statuses(panel, mark)
    assert shown[0][0] == "busy" and shown[-1] == ("idle", ""), shown
    started = next(m for m in panel.all("status", mark) if m["state"] == "busy")
    assert started.get("model") == scripted_model.model  # the header names the model


async def test_every_kind_of_run_says_when_it_starts_and_ends(tmp_path: Path, scripted_model: Any) -> None:
    scripted_model.queue(
        Reply(text="An answer."),
        Reply(text="## Summary\ndone"),
        ErrorReply(status=401, body="bad key"),
        Reply(text="Fixed."),
    )
    agent = kernel_agent(tmp_path, scripted_model, retries=0)
    runtime = agent.runtime
    events: list[Any] = []
    runtime.bus.subscribe(events.append, "run.started", "run.finished")
    sid = await runtime.prompt("hello", session_id=runtime.new_session().id)
    await runtime.compact(sid)
    await runtime.prompt("again", session_id=sid)
    await runtime.prompt("fix it", session_id=sid, agent="fix")
    kinds = [(type(e).__name__, e.kind) for e in events]
    assert kinds == [
        ("RunStarted", "prompt"), ("RunFinished", "prompt"),
        ("RunStarted", "compact"), ("RunFinished", "compact"),
        ("RunStarted", "prompt"), ("RunFinished", "prompt"),
        ("RunStarted", "fix"), ("RunFinished", "fix"),
    ]  # fmt: skip
    assert all(isinstance(e, RunStarted) and e.model.name == scripted_model.model for e in events[::2])
    finished = [e for e in events if isinstance(e, RunFinished)]
    assert [e.status for e in finished] == ["done", "done", "failed", "done"]
    assert finished[2].failure and "bad key" in finished[2].failure


async def test_a_stop_ends_in_stopped_and_clears_the_busy_mark(tmp_path: Path, scripted_model: Any) -> None:
    """The picker's "●" stayed on a session after a stop: nothing listed the sessions again."""
    scripted_model.queue(Reply(text="word " * 2000, chunk_size=5, delay_per_chunk=0.005))
    agent = kernel_agent(tmp_path, scripted_model)
    runtime = agent.runtime
    sid = agent.current_session()
    panel = Panel(agent)
    finished: list[RunFinished] = []
    runtime.bus.subscribe(finished.append, "run.finished")  # type: ignore[arg-type]
    run = asyncio.ensure_future(runtime.prompt("write a lot", session_id=sid))  # a cell's run
    while not scripted_model.requests:
        await asyncio.sleep(0.01)
    panel.request(type="sessions")
    assert next(s for s in panel.last("sessions")["sessions"] if s["id"] == sid)["busy"]  # type: ignore[index]
    runtime.stop(sid)
    with contextlib.suppress(asyncio.CancelledError):
        await run
    assert finished and finished[-1].status == "stopped"
    listed = panel.last("sessions")
    assert listed is not None and not next(s for s in listed["sessions"] if s["id"] == sid)["busy"]
    assert statuses(panel)[-1][0] == "idle"


async def test_the_panel_gauge_follows_the_runs_model(tmp_path: Path, scripted_model: Any) -> None:
    """After a model change the panel said 1 % and the cell 7-9 % for the same session: the
    panel read the configured model's window once, when it attached."""
    big, small = scripted_model.model, "openai/small-window"
    windows = {big: {"limit": {"context": 1_000_000}}, small: {"limit": {"context": 10_000}}}
    scripted_model.queue(Reply(text="first", usage=Usage(prompt_tokens=700, completion_tokens=20)))
    scripted_model.queue(Reply(text="second", usage=Usage(prompt_tokens=800, completion_tokens=20)))
    agent = kernel_agent(tmp_path, scripted_model, models=windows)
    runtime = agent.runtime
    sid = agent.current_session()
    await runtime.prompt("hello", session_id=sid)
    panel = Panel(agent)  # attaches to the session, configured model (1M window)
    cell: list[int | None] = []

    class CellView:
        def set_gauge(self, tokens: int, percent: int | None, cost: str = "") -> None:
            cell.append(percent)

    model = runtime.resolve_model(small)  # the cell's run with `--model`, as `send` resolves it
    off = runtime.bus.subscribe(LiveGauge(CellView(), sid, model.context, runtime))
    mark = len(panel.seen)
    await runtime.prompt("again", session_id=sid, model=small, resolved=model)
    off()
    gauges = panel.all("gauge", mark)
    assert gauges and cell and gauges[-1]["percent"] == cell[-1] == 8, (gauges[-1], cell)
    # a panel opened afterwards shows the session's own model too
    assert Panel(agent).last("gauge")["percent"] == 8  # type: ignore[index]


async def test_fix_with_agent_shows_the_request_not_its_plumbing(tmp_path: Path, scripted_model: Any) -> None:
    """Issue 40 item 7: the panel showed the internal instruction with the cell's UUID."""
    scripted_model.queue(Reply(text="The divisor is zero."))
    agent = kernel_agent(tmp_path, scripted_model)
    panel = Panel(agent)
    cell_id = "f2616c8e-5a4b-4c3d-9e8f-0123456789ab"
    panel.request(
        type="fix", cell_id=cell_id, source="x = 1 / 0", ename="ZeroDivisionError",
        evalue="division by zero", traceback=["ZeroDivisionError: division by zero"], execution_count=14,
    )  # fmt: skip
    await panel.settle()
    shown = [m["part"]["text"] for m in panel.all("part") if m["part"]["type"] == "text"]
    user = shown[0]
    assert user.startswith("Fix `In [14]`: ZeroDivisionError: division by zero\n\n<cell_")  # then the chips
    assert cell_id not in "".join(shown) and "notebook_edit" not in "".join(shown)
    assert 'ref="In [14]"' in user  # the cell is named as everywhere else
    sent = str(scripted_model.requests[0]["body"]["messages"])
    assert cell_id in sent and "notebook_edit" in sent  # the model still gets its instructions


async def test_a_local_model_shows_no_cost_and_a_priced_one_does(tmp_path: Path, scripted_model: Any) -> None:
    """Issue 40 item 9: "cost unknown" was noise for a local model (an api_base server, Ollama)."""
    scripted_model.queue(Reply(text="first"), Reply(text="second"))
    local = kernel_agent(tmp_path / "local", scripted_model)
    sid = local.current_session()
    panel = Panel(local)
    await local.runtime.prompt("hello", session_id=sid)
    shown = panel.all("gauge")
    assert shown and all("cost" not in g for g in shown) and all("unknown" not in g["text"] for g in shown)
    # a team's LiteLLM proxy: a server too, but its models are priced ones
    hosted = kernel_agent(tmp_path / "hosted", scripted_model, model="litellm_proxy/claude-sonnet")
    sid = hosted.current_session()
    panel = Panel(hosted)
    await hosted.runtime.prompt("hello", session_id=sid)
    assert panel.last("gauge")["cost"]  # type: ignore[index]  # a hosted model: its cost (or "unknown")
