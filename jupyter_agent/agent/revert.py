"""Revert / unrevert: undo everything the agent changed after a message, and undo that undo.

A revert puts back, from the checkpoints recorded around each tool call: the files any tool
changed (``revert_files.py``), the notebook's cells the agent inserted, replaced or deleted
(in the open document through the side panel, else in the file) and the kernel variables
its code changed. The messages after the point are hidden at once and deleted when the
next prompt (or a compaction) starts; ``unrevert`` puts everything back until then. What
could not be restored is named in the report (``checkpoint/report.py``), never skipped.

The files, variables and messages change at once (synchronously, so the next cell sees
them); the open notebook's cells go through the side panel: ``Reverting.finish`` awaits it.

Whatever a store says, every path is checked again before anything is written: one that
leaves the project is refused (a tampered or imported store), and a protected one (a git
hook, a configuration file) is written only when the user approves it (``approve``: the
terminal asks; elsewhere it is refused).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from jupyter_agent.agent.checkpoints import Checkpoints
from jupyter_agent.agent.outside import external_pattern, refused_paths
from jupyter_agent.agent.permissions import Rule
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.revert_files import first_changes, keep_current, put_back, restore
from jupyter_agent.agent.revert_files import shown as display_path
from jupyter_agent.checkpoint.cells import CellStep, redo_steps, undo_steps
from jupyter_agent.checkpoint.report import RevertReport
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.messages import (
    AssistantMessage,
    CellChange,
    CompactionPart,
    MessageWithParts,
    PatchPart,
    RevertState,
    UserMessage,
    VariableSave,
)
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.notebook_file import FileBackend
from jupyter_agent.tools.staging import Staging

NO_KERNEL = "only the notebook's kernel holds saved variables: revert from the notebook (%agent revert)"
CellsTarget = Callable[[str], Any]
"""A notebook's path → where its cells are restored (the side panel's bridge, a ``FileBackend``),
or a string saying why they cannot be."""


class SessionAccess(Protocol):
    """What a revert needs of the sessions (``SessionService`` passes itself); named here so
    that this module does not import the service that offers revert."""

    @property
    def store(self) -> SqliteStore: ...

    @property
    def project_root(self) -> Path: ...

    @property
    def checkpoints(self) -> Checkpoints | None: ...

    def rules_for(self, agent: str) -> dict[str, Rule]: ...

    def protects(self, path: Path) -> str | None: ...

    def busy(self, session_id: str) -> bool: ...

    def recorder(self, session_id: str) -> Recorder: ...


class RevertError(UsageFailure):
    """A revert that cannot be done; the message says why."""


def file_cells(notebook: str) -> Any:
    """Cells restored in the notebook file (a revert from the CLI, a notebook no frontend holds)."""
    return FileBackend(Path(notebook)) if Path(notebook).exists() else "the notebook file is gone"


@dataclass
class Reverting:
    """A revert or unrevert whose files, variables and messages are done; the notebook's cells
    follow in ``finish`` (through the side panel when the notebook is open)."""

    report: RevertReport
    steps: dict[str, list[CellStep]] = field(default_factory=dict)
    cells: CellsTarget = file_cells
    unstage: list[str] = field(default_factory=list)
    bridge: Any = None

    @property
    def live(self) -> bool:
        """Some of the work waits for the side panel's answer."""
        return any(not isinstance(self.cells(nb), (str, FileBackend)) for nb in self.steps) or bool(
            self.unstage and self.bridge is not None
        )

    async def finish(self) -> RevertReport:
        report = self.report
        for notebook, steps in self.steps.items():
            target = self.cells(notebook)
            if isinstance(target, str):
                report.not_restored.append(f"cells of {Path(notebook).name}: {target}")
                continue
            try:
                done, problems = await target.apply_steps(steps)
            except Exception as exc:  # the panel closed, the file is not a notebook …
                report.not_restored.append(f"cells of {Path(notebook).name}: {exc}")
                continue
            report.cells.extend(done)
            report.not_restored.extend(problems)
            if done and isinstance(target, FileBackend):
                report.notes.append(
                    f"{Path(notebook).name} was restored in its file: if a notebook page has it open, "
                    "reload it from disk before saving"
                )
        if self.unstage and self.bridge is not None:
            try:
                await self.bridge.unstage(self.unstage)
            except Exception as exc:
                report.not_restored.append(f"staged cell edits still shown in the notebook: {exc}")
        report.cells_pending = False
        return report


def _check_inside(sessions: SessionAccess, paths: list[str], action: str) -> None:
    """Refuse before writing anything when a stored path leaves the project (an imported
    or tampered session must not write elsewhere); only an "allow" rule lets it through."""
    bad = refused_paths(paths, sessions.project_root, sessions.rules_for("build"))
    if bad:
        shown = ", ".join(bad[:3]) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        example = json.dumps({"permission": {"external_directory": {external_pattern(bad[0]): "allow"}}})
        raise RevertError(
            f"{action} would write outside the project ({shown}); nothing was changed. "
            f"If you trust this session, allow it in jupyter-agent.json, e.g. {example}"
        )


Approve = Callable[[list[str]], bool]
"""Asked with one line per protected path; True writes them."""


def _check_protected(sessions: SessionAccess, paths: list[str], action: str, approve: Approve | None) -> None:
    """Protected paths are written only with the user's approval, whatever the store says."""
    found = [f"{p} ({why})" for p in paths if (why := sessions.protects(Path(p))) is not None]
    if not found or (approve is not None and approve(found)):
        return
    shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
    raise RevertError(
        f"{action} would write protected paths: {shown}; nothing was changed. They are never "
        "written without you: restore them yourself, or run `jupyter-agent sessions "
        f"{action.lower()}` in a terminal, which asks."
    )


def _default_point(history: list[MessageWithParts]) -> str:
    users = [m.info.id for m in history if isinstance(m.info, UserMessage)]
    if not users:
        raise RevertError("Nothing to revert: the session has no prompts yet.")
    return users[-1]


def _patches(
    sessions: SessionAccess, session_id: str, after: list[MessageWithParts], point: str
) -> list[PatchPart]:
    """The checkpoints from ``point`` on, oldest first, its sub-agents' sessions included."""
    found = [p for m in after for p in m.parts if isinstance(p, PatchPart)]
    children = [s.id for s in sessions.store.list_sessions(None) if s.parent_id == session_id]
    for child in children:
        found.extend(
            p for m in sessions.store.messages(child, point) for p in m.parts if isinstance(p, PatchPart)
        )
    return sorted(found, key=lambda p: p.id)


def _group(changes: list[CellChange]) -> dict[str, list[CellChange]]:
    out: dict[str, list[CellChange]] = {}
    for change in changes:
        out.setdefault(change.notebook, []).append(change)
    return out


def _restore_variables(
    sessions: SessionAccess, saves: list[VariableSave], report: RevertReport
) -> list[VariableSave]:
    """Put back each name's earliest save; returns what the names held (for unrevert)."""
    first: dict[str, VariableSave] = {}
    for save in saves:
        first.setdefault(save.name, save)
    if not first:
        return []
    checkpoints = sessions.checkpoints
    ns = checkpoints.namespace if checkpoints is not None else None
    if checkpoints is None or ns is None:
        report.not_restored.extend(f"variable {name}: {NO_KERNEL}" for name in first)
        return []
    restored, problems, before = checkpoints.variables.restore(ns, first.values())
    report.variables.extend(restored)
    report.not_restored.extend(f"variable {p}" for p in problems)
    return before


def revert(
    sessions: SessionAccess,
    session_id: str,
    message_id: str | None = None,
    *,
    cells: CellsTarget = file_cells,
    staging: Staging | None = None,
    bridge: Any = None,
    approve: Approve | None = None,
) -> Reverting:
    """Hide the messages from ``message_id`` on and restore what they changed (the open
    notebook's cells once ``finish`` is awaited)."""
    if sessions.busy(session_id):
        raise RevertError("The agent is working in this session; stop it first, then revert.")
    session = sessions.store.get_session(session_id)
    history = sessions.store.messages(session_id)
    if session.revert is not None:
        history = [m for m in history if m.info.id < session.revert.message_id]
    point = message_id or _default_point(history)
    if point not in {m.info.id for m in history}:
        known = ", ".join(m.info.id for m in history if isinstance(m.info, UserMessage))
        raise RevertError(f"No message '{point}' in this session. Prompts: {known}")
    after = [m for m in history if m.info.id >= point]
    for m in after:
        if any(isinstance(p, CompactionPart) for p in m.parts) or (
            isinstance(m.info, AssistantMessage) and m.info.summary
        ):
            raise RevertError(
                "Cannot revert across a compaction: the history before it was summarised. "
                "Fork the session at an earlier message instead (%agent fork MSG_ID)."
            )
    patches = _patches(sessions, session_id, after, point)
    changes = first_changes(patches)
    cell_changes = [c for p in patches for c in p.cells]
    touched = sorted(changes.keys() | {c.notebook for c in cell_changes})
    _check_inside(sessions, touched, "Revert")
    _check_protected(sessions, touched, "Revert", approve)
    checkpoints = sessions.checkpoints
    blobs = checkpoints.blobs if checkpoints is not None else None
    report = RevertReport(kind="revert", message_id=point)
    writable = sorted(path for path, change in changes.items() if not change.unsaved)  # left as they are
    limit = checkpoints.config.max_file_bytes if checkpoints is not None else 0
    kept = keep_current(writable, blobs, limit) if blobs is not None else {}
    report.notes.extend(
        f"{display_path(path, sessions.project_root)}: {saved['unsaved']}"
        for path, saved in kept.items()
        if isinstance(saved, dict)
    )
    report.files_restored, report.files_removed, problems = restore(changes, blobs, sessions.project_root)
    report.not_restored.extend(problems)
    report.notes.extend(n for p in patches for n in p.notes)
    before = _restore_variables(sessions, [v for p in patches for v in p.variables], report)
    steps: dict[str, list[CellStep]] = {}
    for notebook, group in _group(cell_changes).items():
        undo, unstorable = undo_steps(group, blobs) if blobs is not None else ([], [])
        steps[notebook] = undo
        report.not_restored.extend(unstorable)
    dropped = [e.id for e in (staging.pending(session_id) if staging else []) if e.message_id >= point]
    if staging is not None:
        staging.drop(dropped)
    report.staged_dropped = len(dropped)
    state_data: dict[str, Any] = {
        "files": kept,
        "cells": [c.model_dump() for c in cell_changes],
        "variables": [v.model_dump() for v in before],
    }
    if session.revert is not None and session.revert.snapshot:
        state_data = _merge(json.loads(session.revert.snapshot), state_data)
    state = RevertState(message_id=point, snapshot=json.dumps(state_data))
    sessions.recorder(session_id).update_session(session.model_copy(update={"revert": state}))
    reverting = Reverting(report, steps, cells, dropped, bridge)
    report.cells_pending = bool(steps)
    return reverting


def _merge(older: dict[str, Any], newer: dict[str, Any]) -> dict[str, Any]:
    """A revert further back while one is pending: unrevert goes back to before the first one."""
    if "files" not in older:  # a snapshot from before checkpoints: {path: {"content", "binary"}}
        older = {"files": older, "cells": [], "variables": []}
    names = {v["name"] for v in older.get("variables", [])}
    return {
        "files": {**newer["files"], **older.get("files", {})},
        "cells": newer["cells"] + older.get("cells", []),
        "variables": older.get("variables", []) + [v for v in newer["variables"] if v["name"] not in names],
    }


def unrevert(
    sessions: SessionAccess,
    session_id: str,
    *,
    cells: CellsTarget = file_cells,
    approve: Approve | None = None,
) -> Reverting:
    """Put back the files, variables, cells and messages of the pending revert."""
    if sessions.busy(session_id):
        raise RevertError("The agent is working in this session; stop it first.")
    session = sessions.store.get_session(session_id)
    if session.revert is None:
        raise RevertError("Nothing to unrevert: there is no pending revert in this session.")
    data: dict[str, Any] = json.loads(session.revert.snapshot or "{}")
    if "files" not in data:  # a revert recorded before checkpoints
        data = {"files": data, "cells": [], "variables": []}
    notebooks = {c.get("notebook", "") for c in data.get("cells", [])} - {""}
    touched = sorted(data["files"].keys() | notebooks)
    _check_inside(sessions, touched, "Unrevert")
    _check_protected(sessions, touched, "Unrevert", approve)
    checkpoints = sessions.checkpoints
    blobs = checkpoints.blobs if checkpoints is not None else None
    report = RevertReport(kind="unrevert", message_id=session.revert.message_id)
    report.files_restored, report.files_removed, problems = put_back(
        data["files"], blobs, sessions.project_root
    )
    report.not_restored.extend(problems)
    saves = [VariableSave.model_validate(v) for v in data.get("variables", [])]
    _restore_variables(sessions, saves, report)
    changes = [CellChange.model_validate(c) for c in data.get("cells", [])]
    steps: dict[str, list[CellStep]] = {}
    for notebook, group in _group(changes).items():
        redo, unstorable = redo_steps(group, blobs) if blobs is not None else ([], [])
        steps[notebook] = redo
        report.not_restored.extend(unstorable)
    sessions.recorder(session_id).update_session(session.model_copy(update={"revert": None}))
    report.cells_pending = bool(steps)
    return Reverting(report, steps, cells)


def cleanup(sessions: SessionAccess, session_id: str) -> int:
    """Make a pending revert final: delete the hidden messages. Returns how many."""
    session = sessions.store.get_session(session_id)
    if session.revert is None:
        return 0
    point = session.revert.message_id
    recorder = sessions.recorder(session_id)
    hidden = [m.info.id for m in sessions.store.messages(session_id) if m.info.id >= point]
    for mid in hidden:
        recorder.remove_message(mid)
    recorder.update_session(session.model_copy(update={"revert": None}))
    return len(hidden)
