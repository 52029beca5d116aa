"""The sessions of one notebook or folder: create, list, rename, fork, import, export, revert, delete.

Kept apart from running (``agent/runner.py``): listing, renaming or exporting a session
never needs a model client, tools or a loop. The one thing both sides share is which
sessions are running (``SessionLocks``): a revert refuses a session the runner is busy with.
"""

from __future__ import annotations

import asyncio
import builtins  # annotations below: the `list` method shadows the builtin in this class
import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from jupyter_agent.agent.checkpoints import Checkpoints
from jupyter_agent.agent.outside import drop_outside_changes
from jupyter_agent.agent.permissions import Rule
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.revert import Approve, CellsTarget, Reverting, cleanup, file_cells, revert, unrevert
from jupyter_agent.core import ids
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionCreated, SessionDeleted
from jupyter_agent.core.messages import MessageWithParts, Session
from jupyter_agent.session.export import (
    SessionExport,
    export_json_lines,
    export_markdown_lines,
    notebook_cells,
)
from jupyter_agent.session.fork import MessageNotFound, copy_messages, fork_session
from jupyter_agent.storage.sqlite_store import SqliteStore


@dataclass
class SessionLocks:
    """One lock per session: prompts to a session queue behind each other, and whoever
    must not touch a running session (revert, delete in a front end) asks ``busy``."""

    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    def busy(self, session_id: str) -> bool:
        return self.lock(session_id).locked()


@dataclass
class SessionService:
    """Stored sessions of one notebook (``notebook_path``) or folder, and their files' revert."""

    store: SqliteStore
    bus: Bus
    project_root: Path
    working_dir: Path
    notebook_path: str | None
    rules_for: Callable[[str], dict[str, Rule]]
    """The permission rules of an agent: import and revert never write outside the project."""
    locks: SessionLocks
    guarded: Callable[[Path], str | None] = lambda path: None
    """Why a path is protected (revert asks before writing it), else None."""

    def protects(self, path: Path) -> str | None:
        return self.guarded(path)

    checkpoints: Checkpoints | None = None
    """The snapshot store and saved variables a revert restores from."""

    def create(self, title: str = "", parent_id: str | None = None) -> Session:
        stamp = dt.datetime.fromtimestamp(now_ms() / 1000, dt.timezone.utc).isoformat(timespec="seconds")
        prefix = "Child session" if parent_id else "New session"
        session = Session(
            id=ids.ascending("ses"),
            notebook_path=self.notebook_path,
            directory=str(self.working_dir),
            title=title or f"{prefix} - {stamp}",
            parent_id=parent_id,
        )
        self.store.create_session(session)
        self.bus.publish(SessionCreated(session=session))
        return session

    def list(self) -> builtins.list[Session]:
        """Top-level sessions of this notebook (subtask children are reached through their parent)."""
        return [s for s in self.store.list_sessions(self.notebook_path) if s.parent_id is None]

    def latest(self) -> Session | None:
        sessions = self.list()
        return max(sessions, key=lambda s: s.time.updated) if sessions else None

    def rename(self, session_id: str, title: str) -> Session:
        session = self.store.get_session(session_id).model_copy(update={"title": title})
        self.store.update_session(session)
        return session

    def delete(self, session_id: str) -> None:
        self.store.delete_session(session_id)
        self.bus.publish(SessionDeleted(session_id=session_id))

    def busy(self, session_id: str) -> bool:
        return self.locks.busy(session_id)

    def recorder(self, session_id: str) -> Recorder:
        return Recorder(self.store, self.bus, self.store.get_session(session_id))

    def fork(self, session_id: str, before: str | None = None) -> Session:
        """Copy the session up to (not including) ``before`` into a new session."""
        source = self.store.get_session(session_id)
        history = self.recorder(session_id).history()
        if before is not None and before not in {m.info.id for m in history}:
            raise MessageNotFound(f"No message '{before}' in session {session_id}.")
        titles = [s.title for s in self.store.list_sessions(None)]
        session, messages = fork_session(source, history, before, titles)
        self._store_copy(session, messages)
        return session

    def import_session(self, data: str, dropped: builtins.list[str] | None = None) -> Session:
        """Restore a JSON export as a new session (fresh ids). File changes naming paths
        outside this project are left out (added to ``dropped``): revert never writes there."""
        export = SessionExport.model_validate_json(data)
        session = export.session.model_copy(
            update={
                "id": ids.ascending("ses"),
                "notebook_path": self.notebook_path,
                "parent_id": None,
                "revert": None,
            }
        )
        messages, outside = drop_outside_changes(export.messages, self.project_root, self.rules_for("build"))
        if dropped is not None:
            dropped.extend(outside)
        self._store_copy(session, copy_messages(messages, session.id))
        return session

    def export(self, session_id: str, fmt: Literal["json", "md"]) -> Iterator[str]:
        """The session as JSON (what ``import_session`` reads) or Markdown, redacted, in
        chunks: a huge session is never one string."""
        session, history = self.store.get_session(session_id), self.recorder(session_id).history()
        return (export_json_lines if fmt == "json" else export_markdown_lines)(session, history)

    def export_cells(self, session_id: str) -> builtins.list[dict[str, Any]]:
        """The transcript as Markdown cells (a heading, then one per message) for a notebook."""
        return notebook_cells(self.store.get_session(session_id), self.recorder(session_id).history())

    def _store_copy(self, session: Session, messages: builtins.list[MessageWithParts]) -> None:
        self.store.create_session(session)
        for m in messages:
            self.store.update_message(m.info)
            for p in m.parts:
                self.store.update_part(p)
        self.bus.publish(SessionCreated(session=session))

    def revert(
        self,
        session_id: str,
        message_id: str | None = None,
        *,
        cells: CellsTarget = file_cells,
        staging: Any = None,
        bridge: Any = None,
        approve: Approve | None = None,
    ) -> Reverting:
        """Hide the messages from ``message_id`` on and restore what they changed; ``approve``
        is asked before a protected path is written (None: such a revert is refused)."""
        return revert(
            self, session_id, message_id, cells=cells, staging=staging, bridge=bridge, approve=approve
        )

    def unrevert(
        self, session_id: str, *, cells: CellsTarget = file_cells, approve: Approve | None = None
    ) -> Reverting:
        """Put back what the pending revert undid, and its messages."""
        return unrevert(self, session_id, cells=cells, approve=approve)

    def finish_revert(self, session_id: str) -> None:
        """A new prompt or a compaction makes a pending revert final."""
        cleanup(self, session_id)
