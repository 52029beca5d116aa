"""Hidden state in this kernel: the tracker's IPython hooks, the runs it marks, "Add as cell".

Every cell is watched (``pre_run_cell`` / ``post_run_cell``: a namespace snapshot each,
the AST only while something is hidden); the ``python`` tool wraps its calls
(``tools/python.py``). A run (an ``%agent`` cell, a panel prompt) takes a mark when it
starts and, when it ends, :meth:`HiddenRuns.finish` says what it left that no cell
reproduces. "Add as cell" proposes the code of the calls that produced it as a cell below
the run's, staged for Accept / Reject like any agent edit (``notebook.review = "stage"``), or
inserts it at once through :func:`insert_cell_below`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from jupyter_agent.repro.tracker import HiddenState, HiddenStateTracker
from jupyter_agent.tools.services import NotebookBridge

log = logging.getLogger(__name__)
KEEP_RUNS = 100


def install(shell: Any, tracker: HiddenStateTracker) -> tuple[Any, Any] | None:
    """Watch every cell of ``shell``; a failing hook must never print into the user's cell.
    Returns the two hooks (``pre_run_cell``, ``post_run_cell``) as registered."""
    events = getattr(shell, "events", None)
    if events is None:
        return None

    def before(info: Any) -> None:
        try:
            tracker.current_cell = getattr(info, "cell_id", None) or None
            tracker.before_cell()
        except Exception:
            log.exception("hidden-state tracking failed before a cell")

    def after(result: Any) -> None:
        info = getattr(result, "info", None)
        try:
            tracker.after_cell(
                str(getattr(info, "raw_cell", "") or ""),
                getattr(info, "cell_id", None) or None,
                getattr(result, "execution_count", None),
            )
        except Exception:
            log.exception("hidden-state tracking failed after a cell")

    events.register("pre_run_cell", before)
    events.register("post_run_cell", after)
    return before, after


Stage = Callable[..., Awaitable[Any]]
"""``Runtime.stage_insert``: propose a cell for the user's review (``tools/staging.py``)."""


async def insert_cell_below(bridge: NotebookBridge, after_cell_id: str | None, source: str) -> str:
    """Add as cell with ``notebook.review = "apply"``: the same bridge ``notebook_edit``'s
    insert goes through. Returns the new cell's id."""
    cells = await bridge.read_cells()
    index = next((i + 1 for i, cell in enumerate(cells) if cell.get("id") == after_cell_id), len(cells))
    return await bridge.insert_cell(index, source, "code")


@dataclass
class HiddenRun:
    """One run's window on the tracker, and where its marker offers to add the code."""

    key: str
    session_id: str
    since: int
    until: int
    cell_id: str | None
    shown: HiddenState
    """What it left when it ended (the marker's words once the code was added)."""
    added: str | None = None
    """The cell the code was added as."""


class HiddenRuns:
    """The runs of this kernel that left hidden state, by key (the marker's ``run``)."""

    def __init__(self, tracker: HiddenStateTracker) -> None:
        self.tracker = tracker
        self.runs: dict[str, HiddenRun] = {}

    def start(self) -> int:
        return self.tracker.mark()

    def finish(self, key: str, session_id: str, since: int, cell_id: str | None) -> HiddenState:
        """What the run that started at ``since`` left hidden (remembered under ``key``)."""
        until = self.tracker.mark()
        state = self.tracker.hidden(since, until)
        if state:
            self.runs[key] = HiddenRun(key, session_id, since, until, cell_id, state)
            while len(self.runs) > KEEP_RUNS:
                self.runs.pop(next(iter(self.runs)))
        return state

    def state(self, key: str) -> HiddenState:
        run = self.runs.get(key)
        return self.tracker.hidden(run.since, run.until) if run else HiddenState()

    def open_runs(self, session_id: str) -> list[HiddenRun]:
        """The session's runs whose marker still means something (a panel showing it marks them)."""
        return [
            r for r in self.runs.values() if r.session_id == session_id and (r.added or self.state(r.key))
        ]

    async def add_as_cell(
        self,
        bridge: NotebookBridge,
        key: str,
        cell_id: str | None = None,
        code: str | None = None,
        *,
        stage: Stage | None = None,
        on_added: Callable[[str], None] | None = None,
    ) -> tuple[str | None, HiddenState]:
        """Insert the run's code below its cell (or ``cell_id``); ``code``: what the saved
        transcript recorded, used when this kernel no longer knows the run (restarted).
        ``stage`` (review mode): the cell is proposed for Accept / Reject like any agent edit,
        and counts as added only once accepted; ``on_added`` is told the new cell's id then.
        Returns that id (None while it waits for the user's review)."""
        run = self.runs.get(key)
        state = self.state(key)
        source = state.code() if state.calls else (code or "")
        if not source.strip():
            raise LookupError(
                "Nothing to add: a cell has set those names since, or the code was added already."
                if run is not None
                else "This kernel does not know that run (it restarted) and the output holds no code."
            )
        after = (run.cell_id if run else None) or cell_id

        def added(new_id: str) -> None:
            if state.calls:
                self.tracker.adopt(state, new_id, run.until if run else None)
            if run is not None:
                run.added = new_id
            if on_added is not None:
                on_added(new_id)

        if stage is None:
            new_id = await insert_cell_below(bridge, after, source)
            added(new_id)
            return new_id, state

        async def decided(edit: Any, outcome: Any, _bridge: Any) -> None:
            if outcome.decision == "accept":  # rejected: the marker stays, the code is offered again
                added(str(outcome.cell_id or edit.cell_id or ""))

        await stage(bridge, source, below=after, on_decided=decided)
        return None, state


def live_hidden(tracker: HiddenStateTracker) -> dict[str, str]:
    """Hidden names in this kernel → the words a verification report uses for them."""
    state = tracker.hidden()
    return {name: "the agent's code changed in your kernel" for name in state.names}
