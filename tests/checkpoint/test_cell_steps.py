"""Undoing the agent's cell edits step by step: its inserts, replaces and deletes go back,
the user's own edits to other cells stay; redo puts the agent's edits back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_agent.checkpoint.blobs import BlobStore
from jupyter_agent.checkpoint.cells import apply_steps, cell_label, keep_cell, redo_steps, undo_steps
from jupyter_agent.core.messages import CellChange


def cell(cid: str, source: str, kind: str = "code", count: int | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"id": cid, "cell_type": kind, "source": source, "metadata": {}}
    if kind == "code":
        data.update(
            outputs=[{"output_type": "stream", "name": "stdout", "text": source}], execution_count=count
        )
    return data


def change(
    blobs: BlobStore, action: str, before: Any, after: Any, index: int, prev: str | None
) -> CellChange:
    cid = (before or after)["id"]
    return CellChange(
        notebook="nb.ipynb",
        action=action,  # type: ignore[arg-type]
        cell_id=cid,
        index=index,
        prev_id=prev,
        label=cid,
        before_blob=keep_cell(blobs, before),
        after_blob=keep_cell(blobs, after),
    )


def test_undo_then_redo_round_trips_and_keeps_the_users_edits(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    a, b, c, d = (
        cell("a", "x = 1", count=1),
        cell("b", "y = 2", count=2),
        cell("c", "# notes", "markdown"),
        cell("d", "z"),
    )
    original = [a, b, c, d]
    b2, c2 = {**b, "source": "y = 20", "outputs": [], "execution_count": None}, {**c, "source": "# new notes"}
    new = cell("n", "print(y)")
    changes = [
        change(blobs, "replace", b, b2, 1, "a"),
        change(blobs, "insert", None, new, 2, "b"),
        change(blobs, "replace", c, c2, 3, "n"),
        change(blobs, "delete", d, None, 4, "c"),
    ]
    edited = [a, b2, new, c2]
    edited[0] = {**a, "source": "x = 1  # the user's own edit"}  # made after the agent's
    undo, problems = undo_steps(changes, blobs)
    restored, done, failed = apply_steps(edited, undo)
    assert problems == [] and failed == [] and len(done) == 4
    assert [x["id"] for x in restored] == ["a", "b", "c", "d"]
    assert restored[1] == b and restored[2] == c and restored[3] == d  # outputs and counts too
    assert restored[0]["source"] == "x = 1  # the user's own edit"
    redo, _ = redo_steps(changes, blobs)
    again, _, _ = apply_steps(restored, redo)
    assert [x["id"] for x in again] == ["a", "b", "n", "c"]
    assert again[1]["source"] == "y = 20" and again[3]["source"] == "# new notes"
    assert original == [a, b, c, d]  # nothing was changed in place


def test_a_cell_the_user_deleted_meanwhile_is_said_not_hidden(tmp_path: Path) -> None:
    blobs = BlobStore(tmp_path)
    new = cell("n", "print(1)")
    undo, _ = undo_steps([change(blobs, "insert", None, new, 0, None)], blobs)
    _, done, failed = apply_steps([cell("a", "x")], undo)
    assert done == [] and "already gone" in failed[0]


def test_labels_are_what_the_user_sees() -> None:
    cells = [cell("a", "x", count=14), cell("b", "# t", "markdown"), cell("c", "y")]
    assert [cell_label(cells, i) for i in range(3)] == ["In [14]", "cell 2 (markdown)", "cell 3 (code)"]
