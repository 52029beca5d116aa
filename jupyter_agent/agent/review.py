"""The user decided on a staged cell edit: tell the model, record the change, run the cell.

The staging ``notebook_edit`` call's result is rewritten with the outcome — "accepted", or
"rejected" with the user's reason — the way a rejected approval reads; the model sees it in
its next request (the running loop's recorder re-sends that message; a later prompt reads
the store). An accepted edit is recorded for revert like one applied at once, and a cell
staged with ``run: true`` runs now, after its variables were saved: never before Accept.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jupyter_agent.agent.checkpoints import Checkpoints
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.checkpoint.cells import keep_cell
from jupyter_agent.core import ids
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import ReviewChanged
from jupyter_agent.core.messages import CellChange, PatchPart, ToolPart, ToolStateCompleted
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.notebook_file import output_text
from jupyter_agent.tools.staging import ReviewOutcome, StagedEdit, Staging

log = logging.getLogger(__name__)


def outcome_text(edit: StagedEdit, outcome: ReviewOutcome, ran: str | None = None) -> str:
    """What the model reads in place of "staged for review"."""
    where = f"{edit.label} (cell id {outcome.cell_id or edit.cell_id})"
    if outcome.decision == "accept":
        text = f"The user accepted the staged edit: {where} is applied."
        if ran is not None:
            text += "\nIt ran:\n" + (ran or "(no output)")
        return text
    if outcome.reason.strip():
        reason = outcome.reason.strip()
        return f"The user rejected the staged edit: {where} was not applied, with this feedback: {reason}"
    return (
        f"The user rejected the staged edit: {where} was not applied. Do not stage the same edit again; "
        "ask the user how to proceed."
    )


@dataclass
class Reviews:
    """Applies review outcomes to the sessions of one runtime (wired in ``compose.py``)."""

    store: SqliteStore
    bus: Bus
    staging: Staging
    checkpoints: Checkpoints | None
    recorder_for: Callable[[str], Recorder]
    """The session's live recorder when it runs (its next request must see the outcome)."""

    def changed(self, session_id: str) -> None:
        """The number of a session's pending edits changed: every view's review bar follows."""
        self.bus.publish(ReviewChanged(session_id=session_id, pending=len(self.staging.pending(session_id))))

    async def decided(self, edit: StagedEdit, outcome: ReviewOutcome, bridge: Any) -> None:
        if not edit.session_id:
            return
        session = self.store.get_session(edit.session_id)
        if session.revert is not None and edit.message_id >= session.revert.message_id:
            return  # its prompt was undone: nothing to tell
        recorder = self.recorder_for(edit.session_id)
        ran = None
        if outcome.decision == "accept":
            ran = await self._accepted(recorder, edit, outcome, bridge)
        self._tell(recorder, edit, outcome, ran)

    async def _accepted(
        self, recorder: Recorder, edit: StagedEdit, outcome: ReviewOutcome, bridge: Any
    ) -> str | None:
        """Record the applied edit for revert; run the cell if the agent asked (variables first)."""
        patch = PatchPart(id=ids.ascending("prt"), session_id=edit.session_id, message_id=edit.message_id)
        cell_id = outcome.cell_id or edit.cell_id or ""
        index = outcome.index if outcome.index is not None else (edit.index or 0)
        # the cell as the user saw it ("In [1]"), as for an edit applied at once
        label = (
            f"cell {index + 1} ({edit.cell_type})"
            if edit.action == "insert"
            else edit.label.partition(" ")[2]
        )
        if self.checkpoints is not None:
            blobs = self.checkpoints.blobs
            patch.cells.append(
                CellChange(
                    notebook=edit.notebook,
                    action=edit.action,
                    cell_id=cell_id,
                    index=index,
                    prev_id=outcome.prev_id,
                    label=label or edit.label,
                    before_blob=keep_cell(blobs, outcome.before),
                    after_blob=keep_cell(blobs, outcome.after),
                )
            )
        ran = None
        if edit.run and edit.action != "delete" and bridge is not None:
            if self.checkpoints is not None and edit.cell_type == "code":
                prompt = self._prompt(edit)
                saves, notes = self.checkpoints.save_variables(edit.source, prompt)
                patch.variables.extend(saves)
                patch.notes.extend(notes)
            recorder.part(patch)
            try:
                outputs = await bridge.run_cell(cell_id)
                ran = "\n".join(output_text(o) for o in outputs)
            except Exception as exc:  # the panel closed, the cell failed to start
                ran = f"(it could not run: {exc})"
        if patch.cells or patch.variables:
            recorder.part(patch)
        return ran

    def _prompt(self, edit: StagedEdit) -> str:
        found = self.store.messages(
            edit.session_id, edit.message_id, until=edit.message_id + "\x00", parts=False
        )
        return getattr(found[0].info, "parent_id", edit.message_id) if found else edit.message_id

    def _tell(self, recorder: Recorder, edit: StagedEdit, outcome: ReviewOutcome, ran: str | None) -> None:
        """Rewrite the staging call's result with the outcome (the model's next request has it)."""
        found = self.store.messages(edit.session_id, edit.message_id, until=edit.message_id + "\x00")
        part = next(
            (p for m in found for p in m.parts if isinstance(p, ToolPart) and p.call_id == edit.call_id),
            None,
        )
        if part is None or not isinstance(part.state, ToolStateCompleted):
            return
        metadata = {
            **part.state.metadata,
            "review": "accepted" if outcome.decision == "accept" else "rejected",
        }
        if outcome.reason.strip():
            metadata["reason"] = outcome.reason.strip()
        verb = "Accepted" if outcome.decision == "accept" else "Rejected"
        state = part.state.model_copy(
            update={
                "output": outcome_text(edit, outcome, ran),
                "title": f"{verb}: {edit.label}",
                "metadata": metadata,
            }
        )
        recorder.part(part.model_copy(update={"state": state}))
