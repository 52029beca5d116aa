"""What the saved notebook itself says about its reproducibility, before anything runs.

- a cell executed out of order: its saved ``In [n]`` is lower than a cell's above it;
- a cell that reads a name no earlier cell binds (hidden state: a deleted cell, a cell
  further down, the agent's code, a name typed in a console);
- names an ``%agent`` run changed with code that is in no cell: its transcript records
  them (``jupyter_agent.hidden_state`` in the output's metadata).

Agent cells (``%agent`` / ``%%agent``) are prompts, not code: they bind no names here.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.repro.names import CodeNames, analyse_cell

_AGENT = re.compile(r"^[ \t]*%%?agent\b", re.MULTILINE)
_VERIFY = re.compile(
    r"^[ \t]*%agent[ \t]+verify(?:[ \t]+--with-agent)?(?:[ \t]+\S+\.ipynb)?[ \t]*$", re.MULTILINE
)
METADATA_KEY = "jupyter_agent"


def source_of(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def is_agent_cell(source: str) -> bool:
    """A cell that asks the agent (it would call the model again when run)."""
    return bool(_AGENT.search(source))


def is_verify_cell(source: str) -> bool:
    """``%agent verify``: never replayed (a verification inside a verification)."""
    return bool(_VERIFY.search(source))


def agent_hidden_names(cell: dict[str, Any]) -> list[str]:
    """The names an agent cell's run left as hidden state, as its saved transcript says."""
    found: list[str] = []
    for output in cell.get("outputs") or []:
        meta = (output.get("metadata") or {}).get(METADATA_KEY) or {}
        hidden = meta.get("hidden_state") if isinstance(meta, dict) else None
        if isinstance(hidden, dict):
            found += [n for n in hidden.get("names") or [] if isinstance(n, str)]
    return list(dict.fromkeys(found))


@dataclass
class CellFacts:
    index: int
    """Position in the notebook (0-based, all cell types counted)."""
    number: int
    """1-based position, as the report shows it (``cell 4``)."""
    count: int | None
    agent: bool
    names: CodeNames
    out_of_order: int | None = None
    """The index of a cell above that ran after this one."""
    undefined: list[str] = field(default_factory=list)
    """Read, but bound by no earlier code cell and by no later one."""
    later: dict[str, int] = field(default_factory=dict)
    """Read, but bound only by a later cell (name → its index)."""
    agent_changed: dict[str, int] = field(default_factory=dict)
    """Read after an agent run changed it and before a cell bound it again (name → agent cell index)."""
    after_opaque: bool = False
    """An earlier cell may bind names this analysis cannot see (``exec``, ``import *``, ``%run``)."""


def analyse_notebook(cells: list[dict[str, Any]]) -> list[CellFacts]:
    """The code cells of ``cells`` (nbformat v4 dicts) with what their saved state says."""
    facts: list[CellFacts] = []
    for index, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = source_of(cell)
        agent = is_agent_cell(source)
        count = cell.get("execution_count")
        names = CodeNames() if agent else analyse_cell(source)
        facts.append(CellFacts(index, index + 1, count if isinstance(count, int) else None, agent, names))
    _order(facts)
    _dependencies(facts, cells)
    return facts


def _order(facts: list[CellFacts]) -> None:
    latest: CellFacts | None = None
    for fact in facts:
        if fact.count is None:
            continue
        if latest is not None and latest.count is not None and fact.count < latest.count:
            fact.out_of_order = latest.index
        if latest is None or (latest.count is not None and fact.count > latest.count):
            latest = fact


def _dependencies(facts: list[CellFacts], cells: list[dict[str, Any]]) -> None:
    bound: set[str] = set()
    opaque = False
    agent_changed: dict[str, int] = {}
    binders: dict[str, list[int]] = {}
    for fact in facts:
        for name in fact.names.binds:
            binders.setdefault(name, []).append(fact.index)
    for fact in facts:
        names = fact.names
        fact.after_opaque = opaque
        for name in sorted(names.reads - bound):
            indices = binders.get(name, [])
            later = indices[bisect.bisect_right(indices, fact.index) :]
            if later:
                fact.later[name] = later[0]
            else:
                fact.undefined.append(name)
        fact.agent_changed = {
            n: agent_changed[n] for n in sorted(names.reads | names.mutates) if n in agent_changed
        }
        if fact.agent:
            for name in agent_hidden_names(cells[fact.index]):
                agent_changed[name] = fact.index
        for name in names.binds:
            bound.add(name)
            agent_changed.pop(name, None)
        bound -= names.deletes
        opaque = opaque or names.opaque
