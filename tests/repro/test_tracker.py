"""Hidden state in a real in-process IPython shell: cells run through ``run_cell`` (IPython's
own events) and the agent's code through the real ``python`` tool."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.kernel import hidden_state
from jupyter_agent.kernel.hidden_state import HiddenRuns, insert_cell_below
from jupyter_agent.repro.namespace import diff, fingerprint, snapshot
from jupyter_agent.repro.tracker import HiddenStateTracker
from jupyter_agent.tools.base import ToolContext
from jupyter_agent.tools.python import PythonTool
from jupyter_agent.tools.services import Services


@pytest.fixture
def ipython() -> Iterator[Any]:
    sh = InteractiveShell.instance()
    sh.reset()
    yield sh
    for event in ("pre_run_cell", "post_run_cell"):
        sh.events.callbacks[event].clear()


@pytest.fixture
def tracker(ipython: Any) -> HiddenStateTracker:
    found = HiddenStateTracker(ipython.user_ns)
    hidden_state.install(ipython, found)
    return found


def cell(ipython: Any, code: str) -> None:
    result = ipython.run_cell(code, store_history=True)
    assert result.success, result.error_in_exec


async def agent(ipython: Any, tracker: HiddenStateTracker, code: str, tmp_path: Path) -> Any:
    ctx = ToolContext(
        session_id="ses_a",
        message_id="msg_a",
        call_id=f"call_{len(tracker.chains)}",
        agent="build",
        project_root=tmp_path,
        working_dir=tmp_path,
        services=Services(shell=ipython, hidden_state=tracker),
    )
    tool = PythonTool()
    return await tool.run(tool.Args(code=code), ctx)


def test_snapshots_see_rebinding_and_changes_in_place_without_copying() -> None:
    ns: dict[str, Any] = {"xs": [1, 2], "n": 3, "_private": 1, "In": []}
    before = snapshot(ns)
    assert set(before) == {"xs", "n"} and fingerprint(ns["xs"]) == 2
    ns["xs"].append(3)
    ns["n"] = 4
    ns["new"] = object()
    del ns["_private"]
    change = diff(before, snapshot(ns))
    assert (change.mutated, change.rebound, change.added, change.removed) == ({"xs"}, {"n"}, {"new"}, set())


def test_pandas_changes_in_place_show_in_the_shape() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"x": [1.0, None, 3.0]})
    before = fingerprint(frame)
    frame.dropna(inplace=True)
    assert fingerprint(frame) != before


async def test_the_agent_rebinding_sales_is_hidden_until_a_cell_binds_it(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    cell(ipython, "sales = [120, 80, -5, 95]")
    assert not tracker.hidden()
    mark = tracker.mark()
    await agent(ipython, tracker, "sales = [x for x in sales if x >= 0]\nprint(len(sales))", tmp_path)
    await agent(ipython, tracker, "import statistics\nmid = statistics.median(sales)", tmp_path)
    await agent(ipython, tracker, "print(sales)", tmp_path)  # reads only: not part of the state
    state = tracker.hidden(since=mark)
    assert state.changed == ("sales",) and state.defined == ("mid", "statistics")
    assert (
        state.sentence()
        == "`sales` was changed and `mid`, `statistics` defined by the agent's code, not by a cell."
    )
    assert [c.code.splitlines()[0] for c in state.calls] == [
        "sales = [x for x in sales if x >= 0]",
        "import statistics",
    ]
    assert "print(sales)" not in state.code()
    # a cell that changes `sales` in place does not reproduce the agent's rebinding
    cell(ipython, "sales.append(1)")
    assert "sales" in tracker.hidden().names
    # a cell that binds it again does; the other names stay hidden
    cell(ipython, "sales = [1, 2]")
    assert tracker.hidden().names == ("mid", "statistics")


async def test_changes_in_place_by_the_agent_count_too(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    cell(ipython, "d = {'a': 1}\nm = [[0, 0]]")
    await agent(ipython, tracker, "d['a'] = 2", tmp_path)  # same length: only the AST tells
    await agent(ipython, tracker, "m[0][1] = 5", tmp_path)
    assert tracker.hidden().changed == ("d", "m")


async def test_same_value_bound_by_a_cell_clears_it(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    cell(ipython, "flag = False")
    await agent(ipython, tracker, "flag = True", tmp_path)
    cell(ipython, "flag = True")  # the same object (a singleton): the diff sees nothing, the AST does
    assert not tracker.hidden()


async def test_failed_and_interrupted_calls_are_not_offered(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    cell(ipython, "xs = [1]")
    result = await agent(ipython, tracker, "xs = [1, 2, 3]\nraise ValueError('half way')", tmp_path)
    assert result.metadata["error"]["ename"] == "ValueError"
    state = tracker.hidden()
    assert state.changed == ("xs",) and state.calls == ()  # hidden, but that code would raise as a cell


async def test_a_blocking_agent_cell_is_not_credited_with_the_agents_changes(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    """``%agent --wait``: the agent's python calls run inside the cell's own execution."""
    cell(ipython, "sales = [1, -1]")
    tracker.before_cell()  # the %agent cell starts
    await agent(ipython, tracker, "sales = [x for x in sales if x > 0]", tmp_path)
    tracker.after_cell("%agent --wait drop negatives")
    assert tracker.hidden().changed == ("sales",)


async def test_runs_windows_and_add_as_cell(
    ipython: Any, tracker: HiddenStateTracker, tmp_path: Path
) -> None:
    runs = HiddenRuns(tracker)
    cell(ipython, "sales = [3, -1]")
    first = runs.start()
    await agent(ipython, tracker, "sales = [x for x in sales if x > 0]", tmp_path)
    assert runs.finish("run1", "ses_a", first, "cell-3")
    second = runs.start()
    await agent(ipython, tracker, "sales = sales * 2", tmp_path)
    assert runs.finish("run2", "ses_a", second, None).names == ("sales",)
    assert "sales * 2" not in runs.state("run1").code()  # the first run's code: its calls only
    assert not runs.finish("run3", "ses_a", runs.start(), None)  # nothing new: not remembered
    bridge = FakeBridge(["cell-1", "cell-2", "cell-3", "cell-4"])
    new_id, _ = await runs.add_as_cell(bridge, "run1")
    assert bridge.inserted == [(3, "sales = [x for x in sales if x > 0]")]  # below the run's cell
    assert runs.runs["run1"].added == new_id and "sales" in runs.state("run2").names
    await runs.add_as_cell(bridge, "run2", cell_id="cell-4")
    assert bridge.inserted[-1] == (5, "sales = sales * 2")
    assert not tracker.hidden()
    with pytest.raises(LookupError, match="Nothing to add"):
        await runs.add_as_cell(bridge, "run2")
    with pytest.raises(LookupError, match="restarted"):
        await runs.add_as_cell(bridge, "unknown")
    await runs.add_as_cell(bridge, "unknown", code="x = 1")  # what a saved transcript recorded
    assert bridge.inserted[-1] == (len(bridge.ids) - 1, "x = 1")


class FakeBridge:
    """The notebook the panel would edit, as a list of cell ids (the real bridge is a comm)."""

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.inserted: list[tuple[int, str]] = []

    async def read_cells(self) -> list[dict[str, Any]]:
        return [{"id": i, "cell_type": "code", "source": ""} for i in self.ids]

    async def insert_cell(self, index: int, source: str, cell_type: str) -> str:
        new = f"new-{len(self.inserted)}"
        self.ids.insert(index, new)
        self.inserted.append((index, source))
        return new


async def test_insert_below_an_unknown_cell_goes_to_the_end() -> None:
    bridge = FakeBridge(["a", "b"])
    await insert_cell_below(bridge, "gone", "x = 1")
    assert bridge.inserted == [(2, "x = 1")]
