"""Staged cell edits: proposed in the open notebook, applied only when the user accepts them.

``notebook.review = "stage"`` (the default where someone watches): ``notebook_edit`` does not
change a cell; the side panel writes the proposal into the cell's metadata, where the
notebook shows it as an inline diff with Accept / Reject (so the saved ``.ipynb`` keeps the
cell's source as it was, and co-editors see the proposal, not half of it). The user's
decision comes back as a :class:`ReviewOutcome`; whoever staged the edit is called with it
(the agent records it in the tool's result; other callers — "Add as cell" — pass their own).

``stage_insert`` is the one call other code needs: propose a new cell below a given one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from jupyter_agent.core import ids

REVIEW_KEY = "jupyter_agent_review"
"""The cell metadata key a staged edit lives under (``labextension/src/review.ts``)."""


class StagedEdit(BaseModel):
    """One proposed cell edit (also what the side panel is asked to show)."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(default_factory=lambda: ids.ascending("stg"))
    action: Literal["insert", "replace", "delete"]
    cell_id: str | None = None
    """replace/delete: the cell; insert: the placeholder cell once staged."""
    index: int | None = None
    """insert: where the new cell goes (when ``after_id`` is not given)."""
    after_id: str | None = None
    """insert: the cell the new one goes below."""
    source: str = ""
    cell_type: Literal["code", "markdown", "raw"] = "code"
    run: bool = False
    """Run the cell once accepted."""
    label: str = ""
    """The cell as the user sees it (``In [14]``, ``a new cell below In [14]``)."""
    notebook: str = ""
    session_id: str = ""
    message_id: str = ""
    call_id: str = ""


class ReviewOutcome(BaseModel):
    """The user's decision on a staged edit, with the cell before and after it was applied."""

    model_config = ConfigDict(extra="ignore")

    staged_id: str
    decision: Literal["accept", "reject"]
    reason: str = ""
    cell_id: str | None = None
    index: int | None = None
    prev_id: str | None = None
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    edit: StagedEdit | None = None
    """The edit as the notebook kept it (with who staged it): a decision taken after the kernel
    restarted still reaches the agent's session."""


class StageBridge(Protocol):
    """What staging needs of the side panel (``ui/notebook_bridge.py``)."""

    async def stage(self, edit: StagedEdit) -> str: ...


Decided = Callable[[StagedEdit, ReviewOutcome, Any], Awaitable[None]]
"""``(edit, outcome, bridge)``: the bridge of the panel that sent the decision (to run the cell)."""


@dataclass
class Staging:
    """The staged edits this kernel is waiting on, and who to tell about each decision."""

    _pending: dict[str, tuple[StagedEdit, Decided | None]] = field(default_factory=dict)
    _decided: set[str] = field(default_factory=set)
    """Edits already decided: a second decision (a co-editor's, a replay) is ignored."""
    on_change: Callable[[str], None] | None = None
    """Called with a session id when its number of pending edits changed (the review bar)."""
    handler: Decided | None = None
    """Told about edits staged without a callback of their own (the agent's ``notebook_edit``)."""

    async def stage(
        self, bridge: StageBridge, edit: StagedEdit, on_decided: Decided | None = None
    ) -> StagedEdit:
        """Show ``edit`` in the notebook; ``on_decided`` runs when the user accepts or rejects it."""
        cell_id = await bridge.stage(edit)
        staged = edit.model_copy(update={"cell_id": cell_id or edit.cell_id})
        self._pending[staged.id] = (staged, on_decided)
        self._changed(staged.session_id)
        return staged

    def pending(self, session_id: str | None = None) -> list[StagedEdit]:
        return [e for e, _ in self._pending.values() if session_id is None or e.session_id == session_id]

    async def decided(self, outcome: ReviewOutcome, bridge: Any = None) -> StagedEdit | None:
        """The user decided: forget the edit and call its owner; None for one decided already,
        or staged by nobody this kernel can tell (the notebook applied the decision anyway)."""
        if outcome.staged_id in self._decided:
            return None
        found = self._pending.pop(outcome.staged_id, None)
        if found is None and outcome.edit is not None and outcome.edit.session_id:
            found = (
                outcome.edit.model_copy(update={"id": outcome.staged_id}),
                None,
            )  # staged before a restart
        if found is None:
            return None
        self._decided.add(outcome.staged_id)
        edit, callback = found
        self._changed(edit.session_id)
        callback = callback or self.handler
        if callback is not None:
            await callback(edit, outcome, bridge)
        return edit

    def drop(self, staged_ids: list[str]) -> list[StagedEdit]:
        """Forget edits without a decision (their messages were reverted)."""
        dropped = [self._pending.pop(i)[0] for i in staged_ids if i in self._pending]
        for session_id in {e.session_id for e in dropped}:
            self._changed(session_id)
        return dropped

    def _changed(self, session_id: str) -> None:
        if self.on_change is not None and session_id:
            self.on_change(session_id)


async def stage_insert(
    staging: Staging,
    bridge: StageBridge,
    source: str,
    *,
    below: str | None,
    index: int | None = None,
    cell_type: Literal["code", "markdown", "raw"] = "code",
    label: str = "",
    on_decided: Decided | None = None,
) -> StagedEdit:
    """Propose a new cell holding ``source`` below the cell ``below`` (its id; None: at
    ``index``, else at the end) for the user to accept or reject."""
    edit = StagedEdit(
        action="insert",
        after_id=below,
        index=index,
        source=source,
        cell_type=cell_type,
        label=label or "a new cell",
    )
    return await staging.stage(bridge, edit, on_decided)
