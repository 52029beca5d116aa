"""Hidden state: names the agent's ``python`` code set that no cell has set since.

The kernel calls :meth:`HiddenStateTracker.before_cell` / :meth:`after_cell` around every
cell (IPython's events) and the ``python`` tool wraps each call in :meth:`agent_call`.
Both compare namespace snapshots (``namespace.py``) and read the code's AST (``names.py``).
A name the agent defined or changed is *hidden* until a cell binds it again; a cell that
only changes it in place does not reproduce the agent's change. The calls that touched a
hidden name since a cell last bound it are what "Add as cell" inserts, in order; once
inserted (:meth:`adopt`) they count as reproduced.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.repro.names import analyse, analyse_cell
from jupyter_agent.repro.namespace import Snapshot, diff, snapshot

KEEP_CELLS = 200
"""Executed cells remembered (the newest)."""


@dataclass
class AgentCall:
    """One ``python`` tool call that changed the namespace."""

    seq: int
    session_id: str
    call_id: str
    code: str
    defined: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    ok: bool = True
    """False when the code raised: its changes stay hidden, but it is not offered as a cell."""
    adopted: str | None = None
    """The cell it was added as ("" when the cell's id is not known)."""

    @property
    def touched(self) -> tuple[str, ...]:
        return self.defined + self.changed


@dataclass(frozen=True)
class CellRecord:
    """What one executed cell did to the namespace."""

    seq: int
    cell_id: str | None
    count: int | None
    bound: frozenset[str]
    mutated: frozenset[str]
    removed: frozenset[str]


@dataclass(frozen=True)
class HiddenState:
    """What a run (or the whole kernel) left that no cell reproduces."""

    defined: tuple[str, ...] = ()
    """Names the agent created."""
    changed: tuple[str, ...] = ()
    """Names that existed and the agent rebound or changed in place."""
    calls: tuple[AgentCall, ...] = ()
    """The calls that produced it, in order (calls that raised are left out)."""

    @property
    def names(self) -> tuple[str, ...]:
        return self.changed + self.defined

    def __bool__(self) -> bool:
        return bool(self.defined or self.changed)

    def code(self) -> str:
        """The calls' code as one cell, in the order they ran."""
        return "\n\n".join(call.code.strip("\n") for call in self.calls)

    def sentence(self) -> str:
        """``sales`` was changed by the agent's code, not by a cell."""
        changed, defined = self.changed, self.defined
        verb = "was" if len(changed or defined) == 1 else "were"
        if changed and defined:
            what = f"{_listed(changed)} {verb} changed and {_listed(defined)} defined"
        else:
            what = f"{_listed(changed or defined)} {verb} {'changed' if changed else 'defined'}"
        return f"{what} by the agent's code, not by a cell."


def _listed(names: tuple[str, ...], most: int = 6) -> str:
    shown = [f"`{n}`" for n in names[:most]]
    if len(names) > most:
        shown.append(f"{len(names) - most} more")
    return ", ".join(shown)


@dataclass
class HiddenStateTracker:
    namespace: Mapping[str, Any]
    chains: dict[str, list[AgentCall]] = field(default_factory=dict)
    """Hidden name → the agent calls that touched it since a cell last bound it."""
    cells: deque[CellRecord] = field(default_factory=lambda: deque(maxlen=KEEP_CELLS))
    current_cell: str | None = None
    """The id of the cell running now (when the front end sent one)."""
    _baseline: Snapshot | None = None
    _seq: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _last: int = 0

    def mark(self) -> int:
        """A point in time: calls made after it have a greater ``seq``."""
        return self._last

    def _next(self) -> int:
        self._last = next(self._seq)
        return self._last

    # ------------------------------------------------------------ cells

    def before_cell(self) -> None:
        self._baseline = snapshot(self.namespace)

    def after_cell(
        self, source: str, cell_id: str | None = None, count: int | None = None
    ) -> CellRecord | None:
        before, self._baseline = self._baseline, None
        if before is None:  # the cell that loaded the extension
            return None
        after = snapshot(self.namespace)
        change = diff(before, after)
        bound = set(change.added | change.rebound)
        if any(name in source for name in self.chains):  # `x = 5` when x was 5: only the AST says so
            bound |= analyse_cell(source).binds & after.keys()
        for name in bound | change.removed:
            self.chains.pop(name, None)
        if not (bound or change):
            return None
        record = CellRecord(self._next(), cell_id, count, frozenset(bound), change.mutated, change.removed)
        self.cells.append(record)
        return record

    # ------------------------------------------------------------ the agent's code

    @contextlib.contextmanager
    def agent_call(self, session_id: str, call_id: str, code: str) -> Iterator[AgentCall]:
        """Around one ``python`` call; set ``ok`` on the yielded record when the code raised."""
        before = snapshot(self.namespace)
        call = AgentCall(seq=0, session_id=session_id, call_id=call_id, code=code)
        try:
            yield call
        except BaseException:  # interrupted, timed out: what it changed stays hidden, not offered
            call.ok = False
            raise
        finally:
            self._record(call, before)

    def _record(self, call: AgentCall, before: Snapshot) -> None:
        after = snapshot(self.namespace)
        change = diff(before, after)
        in_place = analyse(call.code).mutates & after.keys() & before.keys()
        changed = (change.rebound | change.mutated | in_place) - change.added
        call.defined = tuple(sorted(change.added))
        call.changed = tuple(sorted(changed))
        call.removed = tuple(sorted(change.removed))
        if not (call.defined or call.changed or call.removed):
            return
        call.seq = self._next()
        for name in call.touched:
            self.chains.setdefault(name, []).append(call)
        for name in call.removed:
            self.chains.pop(name, None)
        if self._baseline is not None:  # a blocking %agent cell: these are not the cell's changes
            for name in (*call.touched, *call.removed):
                if name in after:
                    self._baseline[name] = after[name]
                else:
                    self._baseline.pop(name, None)

    # ------------------------------------------------------------ what is hidden

    def hidden(self, since: int = 0, until: int | None = None) -> HiddenState:
        """Hidden names touched by a call in ``(since, until]`` (default: the whole kernel),
        with the calls not yet added as a cell that produced them up to ``until``, in order."""
        last = self._last if until is None else until
        defined: list[str] = []
        changed: list[str] = []
        calls: dict[int, AgentCall] = {}
        for name, chain in sorted(self.chains.items()):
            live = [c for c in chain if c.adopted is None and c.seq <= last]
            if not any(c.seq > since for c in live):
                continue
            (defined if name in live[0].defined else changed).append(name)
            calls.update({c.seq: c for c in live if c.ok})
        return HiddenState(tuple(defined), tuple(changed), tuple(calls[s] for s in sorted(calls)))

    def adopt(self, state: HiddenState, cell_id: str, until: int | None = None) -> None:
        """Its calls (up to ``until``) are a cell now: Restart and Run All reproduces them."""
        last = until if until is not None else max((c.seq for c in state.calls), default=self._last)
        for call in state.calls:
            call.adopted = cell_id
        for name in state.names:  # a call that raised half-way is not offered: it goes too
            for call in self.chains.get(name, []):
                if call.adopted is None and call.seq <= last:
                    call.adopted = cell_id
        for name in [n for n, chain in self.chains.items() if all(c.adopted is not None for c in chain)]:
            del self.chains[name]

    def owner(self, name: str) -> AgentCall | None:
        """The last agent call that set ``name``, while it is hidden."""
        chain = self.chains.get(name)
        return chain[-1] if chain else None
