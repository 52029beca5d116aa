"""Checkpoints around tool calls: what a revert needs to undo each call, recorded as it runs.

Around every call of a tool that may change something (``Tool.mutates``) the project's files
are walked before and after (``checkpoint/files.py``); the tool reports the cells it changed
(``on_cells``) and the code it is about to run (``on_code``: the kernel variables that code
may change are saved first). All of it lands in one ``PatchPart`` of the call's message,
written as soon as there is something to undo and completed when the call ends — also when
it fails or is stopped. A checkpoint that cannot be taken says so in the part (its notes)
and never stops the tool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_agent.checkpoint.blobs import BlobStore
from jupyter_agent.checkpoint.cells import keep_cell
from jupyter_agent.checkpoint.files import Limits, ProjectSnapshots, Snapshot
from jupyter_agent.checkpoint.names import Touched, touched_names
from jupyter_agent.checkpoint.variables import VariableStore
from jupyter_agent.config import CheckpointConfig
from jupyter_agent.core import ids
from jupyter_agent.core.messages import CellChange, FileChange, PatchPart, VariableSave
from jupyter_agent.tools.base import CellEdit

log = logging.getLogger(__name__)


def limits_of(config: CheckpointConfig) -> Limits:
    return Limits(config.max_file_bytes, config.max_total_bytes, config.max_files, tuple(config.exclude))


@dataclass
class Checkpoints:
    """The snapshot store and the kernel's saved variables of one workspace."""

    config: CheckpointConfig
    project_root: Path
    folder: Path
    """Where file contents are kept (``.jupyter-agent/snapshots``)."""
    shell: Any = None
    """The kernel's IPython shell: its namespace holds the variables (None outside a kernel)."""
    live_notebook: Callable[[], str | None] | None = None
    """The notebook a frontend holds open: its file is saved by the frontend (autosave too), so
    a walk never counts it as changed by a tool; its cells are recorded as cells."""
    files: ProjectSnapshots = field(init=False)
    variables: VariableStore = field(init=False)

    def __post_init__(self) -> None:
        self.files = ProjectSnapshots(self.project_root, self.folder, limits_of(self.config))
        self.variables = VariableStore(self.config.max_bytes)

    @property
    def blobs(self) -> BlobStore:
        return self.files.blobs

    @property
    def namespace(self) -> dict[str, Any] | None:
        return getattr(self.shell, "user_ns", None)

    def reconfigure(self, config: CheckpointConfig) -> None:
        self.config = config
        self.files.limits = limits_of(config)
        self.variables.max_bytes = config.max_bytes

    def touched(self, code: str) -> Touched | None:
        """What ``code`` may change; cell syntax (magics, ``!ls``) is turned into Python first."""
        try:
            return touched_names(code)
        except SyntaxError:
            pass
        transform = getattr(self.shell, "transform_cell", None)
        if transform is None:
            return None
        try:
            return touched_names(transform(code))
        except (SyntaxError, ValueError):
            return None  # not Python: it will not run either

    def save_variables(self, code: str, prompt: str) -> tuple[list[VariableSave], list[str]]:
        """Save the variables ``code`` may change (and notes on what could not be looked at)."""
        ns = self.namespace
        if ns is None or not self.config.enabled:
            return [], []
        touched = self.touched(code)
        if touched is None:
            return [], []
        notes = []
        if touched.star:
            notes.append("`from … import *` may rebind names that were not saved")
        return self.variables.save(ns, touched, prompt), notes

    def begin(
        self, record: Callable[[PatchPart], object], session_id: str, message_id: str, prompt: str
    ) -> CallCheckpoint | None:
        """Start the checkpoint of one call (None when checkpoints are off)."""
        if not self.config.enabled:
            return None
        return CallCheckpoint(self, record, session_id, message_id, prompt)


class CallCheckpoint:
    """What one tool call changed: one ``PatchPart``, rewritten as it learns more."""

    def __init__(
        self,
        owner: Checkpoints,
        record: Callable[[PatchPart], object],
        session_id: str,
        message_id: str,
        prompt: str,
    ) -> None:
        self.owner = owner
        self.record = record
        self.prompt = prompt
        self.part = PatchPart(id=ids.ascending("prt"), session_id=session_id, message_id=message_id)
        self.inline: list[FileChange] = []
        self.before: Snapshot | None = self._track()

    def _track(self) -> Snapshot | None:
        try:
            return self.owner.files.track()
        except Exception as exc:  # a checkpoint that cannot be taken is said, never fatal
            log.exception("file snapshot failed")
            self._note(f"the project's files could not be snapshotted ({type(exc).__name__}: {exc})")
            return None

    def _note(self, text: str) -> None:
        if text not in self.part.notes:
            self.part.notes.append(text)

    def _write(self) -> None:
        part = self.part
        if part.files or part.cells or part.variables or part.notes:
            self.record(part.model_copy(deep=True))

    # ------------------------------------------------------------ what the tool reports

    def on_patch(self, changes: list[FileChange]) -> None:
        """A tool's own record of a file before it writes it (kept until the walk knows better)."""
        self.inline.extend(changes)
        self.part.files = self._merged([])
        self._write()

    def on_cells(self, edits: list[CellEdit]) -> None:
        blobs = self.owner.blobs
        for e in edits:
            self.part.cells.append(
                CellChange(
                    notebook=e.notebook,
                    action=e.action,
                    cell_id=e.cell_id,
                    index=e.index,
                    prev_id=e.prev_id,
                    label=e.label,
                    before_blob=keep_cell(blobs, e.before),
                    after_blob=keep_cell(blobs, e.after),
                )
            )
        self._write()

    def on_code(self, code: str) -> None:
        try:
            saves, notes = self.owner.save_variables(code, self.prompt)
        except Exception as exc:
            log.exception("saving variables failed")
            self._note(f"the variables this code may change could not be saved ({type(exc).__name__}: {exc})")
            self._write()
            return
        self.part.variables.extend(saves)
        for note in notes:
            self._note(note)
        self._write()

    # ------------------------------------------------------------ the call ended

    def finish(self) -> None:
        """Walk the project again: every file the call created, changed or removed."""
        after = self._track() if self.before is not None else None
        found: list[FileChange] = []
        if self.before is not None and after is not None:
            found = self.owner.files.changes(self.before, after)
            for note in after.notes:
                self._note(note)
        notebooks = {c.notebook for c in self.part.cells}
        live = self.owner.live_notebook() if self.owner.live_notebook is not None else None
        if live is not None:
            notebooks.add(live)
        self.part.files = [c for c in self._merged(found) if c.path not in notebooks]
        self._write()

    def _merged(self, found: list[FileChange]) -> list[FileChange]:
        """The walk's changes, and the tool's own where the walk has no content kept (a file
        outside the project, or over the snapshot's limits): one change per path."""
        by_path = {c.path: c for c in found}
        for change in self.inline:
            seen = by_path.get(change.path)
            if seen is None or (seen.before_blob is None and seen.existed):
                by_path[change.path] = change
        return list(by_path.values())
