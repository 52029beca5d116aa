"""One row of the report: a cell's fresh run against its saved outputs, with the reasons.

Pure: the runner hands over what the fresh kernel produced (or why it did not run), the
static facts (``static.py``) say what the saved notebook implies. Guesses about hidden
state are only told for a cell that failed or differs (for a cell that reproduced they
would be noise); out-of-order execution is told for every cell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jupyter_agent.repro.outputs import Tolerance, compare_outputs
from jupyter_agent.repro.report import CellReport, DiffView
from jupyter_agent.repro.static import CellFacts, is_verify_cell, source_of

_NAME_ERROR = re.compile(r"name '([A-Za-z_][A-Za-z0-9_]*)' is not defined")


def fresh_error(outputs: list[dict[str, Any]]) -> str | None:
    for output in outputs:
        if output.get("output_type") == "error":
            return f"{output.get('ename', 'Error')}: {output.get('evalue', '')}".rstrip(": ")
    return None


def skipped(fact: CellFacts, cell: dict[str, Any]) -> CellReport:
    source = source_of(cell)
    why = (
        "%agent verify: never replayed"
        if is_verify_cell(source)
        else "agent cell: skipped (it would ask the model again; --with-agent replays it)"
    )
    return _base(fact, cell, "skipped", [why])


def _base(fact: CellFacts, cell: dict[str, Any], status: Any, notes: list[str]) -> CellReport:
    report = CellReport(
        index=fact.index,
        cell_id=cell.get("id") if isinstance(cell.get("id"), str) else None,
        saved_count=fact.count,
        status=status,
        agent=fact.agent,
        notes=notes,
    )
    if fact.out_of_order is not None:
        report.notes.insert(0, f"executed out of order: it ran before cell {fact.out_of_order + 1} above it")
    return report


def judge(
    fact: CellFacts,
    cell: dict[str, Any],
    fresh: list[dict[str, Any]] | None,
    *,
    failure: str | None = None,
    live_hidden: Mapping[str, str] | None = None,
    tol: Tolerance = Tolerance(),
    seconds: float = 0.0,
) -> CellReport:
    """``fresh``: the outputs of the fresh run (None: it did not run, ``failure`` says why)."""
    saved = list(cell.get("outputs") or [])
    if fresh is None:
        report = _base(fact, cell, "failed" if failure else "not run", [])
        report.error = failure
        _explain(report, fact, None, live_hidden or {})
        return report
    report = _base(fact, cell, "ran", [])
    report.seconds = seconds
    error = failure or fresh_error(fresh)
    never_ran = fact.count is None and not saved
    saved_error = fresh_error(saved)
    if error and not (saved_error and saved_error == error):
        report.status, report.error = "failed", error
    elif never_ran:
        report.notes.append("not run in the saved notebook: no outputs to compare")
    else:
        found = compare_outputs(saved, fresh, tol)
        if found is not None:
            report.status = "differs"
            report.diff = DiffView(what=found.what, saved=found.saved, fresh=found.fresh)
        elif saved_error:
            report.notes.append("raised as it did in the saved notebook")
    if report.status in ("failed", "differs"):
        _explain(report, fact, error, live_hidden or {})
    return report


def _explain(report: CellReport, fact: CellFacts, error: str | None, live: Mapping[str, str]) -> None:
    """Why it diverged, as far as the notebook and the kernel tell: hidden state by name."""
    missing = _NAME_ERROR.search(error or "")
    undefined = list(fact.undefined)
    if missing and missing.group(1) not in undefined and missing.group(1) not in fact.later:
        undefined.append(missing.group(1))
    for name in undefined:
        hedge = " (that this check can see)" if fact.after_opaque else ""
        report.notes.append(
            f"`{name}` is defined by no earlier cell{hedge}: hidden state (a deleted cell, or a "
            "name set outside the notebook)"
        )
    for name, where in fact.later.items():
        report.notes.append(
            f"`{name}` is defined only by cell {where + 1} below: the notebook ran out of order"
        )
    for name, where in fact.agent_changed.items():
        report.notes.append(f"reads `{name}`, which the agent's code changed (cell {where + 1}), not a cell")
    reads = fact.names.reads | fact.names.mutates
    live_names = [n for n in sorted(live) if n in reads and n not in fact.agent_changed]
    for name in live_names:
        report.notes.append(f"reads `{name}`, which {live[name]}, not a cell")
    report.hidden = undefined + list(fact.later)
    report.agent_changed = list(fact.agent_changed) + live_names
