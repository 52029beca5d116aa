"""Undoing and redoing the agent's cell edits, as steps any notebook can apply.

A revert does not put back a whole notebook (that would also undo the user's own edits to
other cells): each insert, replace and delete the agent made is undone by one step, newest
first — remove the inserted cell, put the replaced cell back as it was (source, kind,
outputs), re-insert the deleted one below the cell that was above it. The side panel applies
the same steps to the live document (``labextension/src/notebook.ts``); ``apply_steps``
applies them to a notebook file's cells.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from jupyter_agent.checkpoint.blobs import BlobStore, HoldsSecret
from jupyter_agent.core.messages import CellChange

OUTPUTS_CAP = 2 * 1024 * 1024
"""A cell's outputs beyond this are not kept with its change (its source and kind are)."""


class CellStep(BaseModel):
    """One step of a revert or unrevert on a notebook's cells (also sent to the side panel)."""

    model_config = ConfigDict(extra="ignore")

    op: Literal["remove", "put", "insert"]
    """remove the cell; put it as ``cell`` (insert when gone); insert ``cell`` below ``after_id``."""
    cell_id: str
    cell: dict[str, Any] | None = None
    after_id: str | None = None
    """insert: the cell to go below (None: at ``index``, or first when ``index`` is 0)."""
    index: int = 0
    label: str = ""


def cell_label(cells: list[dict[str, Any]], index: int) -> str:
    """A cell as the user sees it: ``In [14]`` when it ran, else ``cell 3 (markdown)``."""
    if not 0 <= index < len(cells):
        return f"cell {index + 1}"
    cell = cells[index]
    count = cell.get("execution_count")
    if cell.get("cell_type", "code") == "code" and isinstance(count, int):
        return f"In [{count}]"
    return f"cell {index + 1} ({cell.get('cell_type', 'code')})"


def keep_cell(blobs: BlobStore, cell: dict[str, Any] | None) -> str | None:
    """Keep a cell (nbformat JSON) as a blob; outputs past ``OUTPUTS_CAP`` are left out. A cell
    holding a secret is not kept (None: a revert names it as not stored)."""
    if cell is None:
        return None
    data = dict(cell)
    if len(json.dumps(data.get("outputs", []))) > OUTPUTS_CAP:
        data["outputs"] = []
    try:
        return blobs.put(json.dumps(data, sort_keys=True).encode("utf-8"))
    except HoldsSecret:
        return None


def load_cell(blobs: BlobStore, key: str | None) -> dict[str, Any] | None:
    if key is None:
        return None
    raw = blobs.get(key)
    return json.loads(raw) if raw is not None else None


def undo_steps(changes: list[CellChange], blobs: BlobStore) -> tuple[list[CellStep], list[str]]:
    """Steps undoing ``changes`` (given oldest first), and what cannot be undone."""
    steps: list[CellStep] = []
    problems: list[str] = []
    for change in reversed(changes):
        before = load_cell(blobs, change.before_blob)
        label = change.label or change.cell_id
        if change.action == "insert":
            steps.append(
                CellStep(op="remove", cell_id=change.cell_id, label=f"the cell the agent added ({label})")
            )
        elif before is None:
            problems.append(
                f"{label}: its content before the agent's change is not stored (it held a secret, "
                "or the snapshots were cleared)"
            )
        elif change.action == "replace":
            steps.append(
                CellStep(op="put", cell_id=change.cell_id, cell=before, index=change.index, label=label)
            )
        else:
            steps.append(
                CellStep(
                    op="insert",
                    cell_id=change.cell_id,
                    cell=before,
                    after_id=change.prev_id,
                    index=change.index,
                    label=label,
                )
            )
    return steps, problems


def redo_steps(changes: list[CellChange], blobs: BlobStore) -> tuple[list[CellStep], list[str]]:
    """Steps making ``changes`` again (oldest first), for an unrevert."""
    steps: list[CellStep] = []
    problems: list[str] = []
    for change in changes:
        after = load_cell(blobs, change.after_blob)
        label = change.label or change.cell_id
        if change.action == "delete":
            steps.append(CellStep(op="remove", cell_id=change.cell_id, label=label))
        elif after is None:
            problems.append(
                f"{label}: the agent's version of it is not stored (it held a secret, or the snapshots "
                "were cleared)"
            )
        elif change.action == "replace":
            steps.append(
                CellStep(op="put", cell_id=change.cell_id, cell=after, index=change.index, label=label)
            )
        else:
            steps.append(
                CellStep(
                    op="insert",
                    cell_id=change.cell_id,
                    cell=after,
                    after_id=change.prev_id,
                    index=change.index,
                    label=f"the cell the agent added ({label})",
                )
            )
    return steps, problems


def _position(cells: list[dict[str, Any]], step: CellStep) -> int:
    if step.after_id is not None:
        for i, cell in enumerate(cells):
            if cell.get("id") == step.after_id:
                return i + 1
    return max(0, min(step.index, len(cells)))


def _describe(step: CellStep) -> str:
    verbs = {"remove": "removed", "put": "restored", "insert": "put back"}
    return f"{step.label}: {verbs[step.op]}"


def apply_steps(
    cells: list[dict[str, Any]], steps: list[CellStep]
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """``cells`` with ``steps`` applied (a new list), what was done, and what could not be."""
    out = [copy.deepcopy(c) for c in cells]
    done: list[str] = []
    problems: list[str] = []
    for step in steps:
        at = next((i for i, c in enumerate(out) if c.get("id") == step.cell_id), None)
        if step.op == "remove":
            if at is None:
                problems.append(f"{step.label}: already gone")
                continue
            del out[at]
        elif (step.op == "put" and at is not None) or at is not None:
            out[at] = copy.deepcopy(step.cell or {})
        else:
            out.insert(_position(out, step), copy.deepcopy(step.cell or {}))
        done.append(_describe(step))
    return out, done, problems
