"""What a front end holds: one notebook's workspace, its sessions and its runner.

The magics, the widget, the side panel and the headless CLI each get one ``Runtime`` from
``agent/compose.py``. It only forwards: sessions live in ``agent/sessions.py``, running in
``agent/runner.py``, configuration and what a run is built from in ``agent/workspace.py``.
It is the whole front door: front ends never reach through it to the services or the store
(``tests/test_front_door.py``); a prompt goes through ``agent/send.py``.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jupyter_agent.agent.inline import InlineCompletions
from jupyter_agent.agent.permissions import PermissionManager
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.revert import Approve, Reverting
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.runner import Runner
from jupyter_agent.agent.sessions import SessionService
from jupyter_agent.agent.setup import Choice, test_connection
from jupyter_agent.agent.workspace import ConfigurationError, Workspace
from jupyter_agent.config import Config
from jupyter_agent.context.inline_context import InlineContext
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.events import RunKind
from jupyter_agent.core.messages import AssistantMessage, MessageWithParts, Session, UserMessage
from jupyter_agent.core.model import ResolvedModel
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.notebook import cells_target
from jupyter_agent.tools.registry import ToolRegistry
from jupyter_agent.tools.services import Services
from jupyter_agent.tools.staging import Decided, ReviewOutcome, StagedEdit, stage_insert


@dataclass
class Runtime:
    """A thin facade so call sites say ``runtime.prompt(…)``; each method forwards to one service."""

    workspace: Workspace
    sessions: SessionService
    runner: Runner
    inline: InlineCompletions | None = None
    """Inline completions in cells (``agent/inline.py``); None: this front end has none."""

    # ------------------------------------------------------------ workspace

    @property
    def config(self) -> Config:
        return self.workspace.config

    @property
    def store(self) -> SqliteStore:
        """The store itself, for composition and tests; front ends use the methods below."""
        return self.workspace.store

    @property
    def store_path(self) -> Path:
        return self.workspace.store.path

    @property
    def store_notice(self) -> str | None:
        """Why the store is not where it used to be (a moved project)."""
        return self.workspace.store.notice

    async def wait_writable(self) -> None:
        """Wait out another process's write lock on the store (``stop`` ends the wait)."""
        await self.workspace.store.wait_writable()

    def flush(self) -> None:
        self.workspace.store.flush()

    def save_output(self, text: str) -> str:
        """Keep ``text`` in a file the agent can read (a long traceback), return its path."""
        return self.workspace.tool_env().save_output(text)

    @property
    def bus(self) -> Bus:
        return self.workspace.bus

    @property
    def registry(self) -> ToolRegistry:
        return self.workspace.registry

    @property
    def permissions(self) -> PermissionManager:
        return self.workspace.permissions

    @property
    def services(self) -> Services:
        return self.workspace.services

    @property
    def project_root(self) -> Path:
        return self.workspace.project_root

    @property
    def working_dir(self) -> Path:
        return self.workspace.working_dir

    @property
    def notebook_path(self) -> str | None:
        return self.workspace.notebook_path

    @property
    def notices(self) -> list[str]:
        return self.workspace.notices

    def model_name(self, model: str | None = None, agent: str = "build") -> str:
        return self.workspace.model_for(model, agent)

    def resolve_model(self, model: str | None = None, agent: str = "build") -> ResolvedModel:
        return self.workspace.resolve_model(model, agent)

    def preflight(self, model: str, *, cli: bool = False) -> str | None:
        return self.workspace.preflight(model, cli=cli)

    async def test_model(self, choice: Choice) -> str:
        """The setup's Test connection: a one-token request with what the user chose."""
        return await test_connection(self.workspace.client, choice, self.config)

    def session_model(self, session_id: str) -> ResolvedModel | None:
        """The model ``session_id`` runs with as far as a view can tell before its next run:
        the one it last ran with here, else its last answer's, else the configured one
        (None: no model at all). A run's ``RunStarted`` then says for sure."""
        known = self.runner.models.get(session_id)
        if known is not None:
            return known
        history = self.workspace.store.messages(session_id, parts=False)
        last = next((m.info.model for m in reversed(history) if isinstance(m.info, AssistantMessage)), "")
        try:
            return self.workspace.describe(last) if last else self.workspace.resolve_model()
        except ConfigurationError:
            return None

    def take_notices(self, session_id: str, model: ResolvedModel | None) -> list[str]:
        return self.workspace.take_notices(session_id, model)

    async def start_mcp(self) -> None:
        await self.workspace.start_mcp()

    async def expand_mcp(self, typed: str, text: str, agent: str = "build") -> str:
        return await self.workspace.expand_mcp(typed, text, agent)

    # ------------------------------------------------------------ sessions

    def get_session(self, session_id: str) -> Session:
        """The session (``SessionNotFound`` says which id and how to list them)."""
        return self.workspace.store.get_session(session_id)

    def list_sessions(self, *, every_notebook: bool = False) -> list[Session]:
        """The top-level sessions of this notebook, or every session of the store."""
        if every_notebook:
            return self.workspace.store.list_sessions(None)
        return self.sessions.list()

    def session_costs(self) -> dict[str, CostTotal]:
        return self.workspace.store.session_costs()

    def call_costs(self, session_id: str | None = None) -> dict[str, CostTotal]:
        return self.workspace.store.call_costs(session_id)

    def completion_costs(self, session_id: str) -> CostTotal:
        """What the inline completions made for the session cost (a line of its own)."""
        return self.inline.costs(session_id) if self.inline is not None else CostTotal()

    def messages(
        self, session_id: str, since: str = "", *, until: str | None = None, parts: bool = True
    ) -> list[MessageWithParts]:
        return self.workspace.store.messages(session_id, since, until=until, parts=parts)

    def message_before(self, session_id: str, before: str | None, count: int = 1) -> str | None:
        return self.workspace.store.message_before(session_id, before, count)

    def last_message(self, session_id: str) -> MessageWithParts | None:
        return self.workspace.store.last_message(session_id)

    def export(self, session_id: str, fmt: Literal["json", "md"]) -> Iterator[str]:
        return self.sessions.export(session_id, fmt)

    def export_cells(self, session_id: str) -> list[dict[str, Any]]:
        return self.sessions.export_cells(session_id)

    def revert(
        self,
        session_id: str,
        message_id: str | None = None,
        bridge: Any = None,
        approve: Approve | None = None,
    ) -> Reverting:
        """Undo from ``message_id`` (default: the last prompt): files, variables and messages
        now; the notebook's cells (through ``bridge``, the side panel, when it is open) in
        ``finish()``. ``approve``: asked before a protected path is written (None: refused)."""
        cells = functools.partial(cells_target, self.services, bridge)
        return self.sessions.revert(
            session_id, message_id, cells=cells, staging=self.services.staging, bridge=bridge, approve=approve
        )

    def unrevert(self, session_id: str, bridge: Any = None, approve: Approve | None = None) -> Reverting:
        return self.sessions.unrevert(
            session_id, cells=functools.partial(cells_target, self.services, bridge), approve=approve
        )

    async def stage_insert(
        self,
        bridge: Any,
        source: str,
        *,
        below: str | None,
        cell_type: Literal["code", "markdown", "raw"] = "code",
        on_decided: Decided | None = None,
    ) -> StagedEdit:
        """Propose a new cell holding ``source`` below the cell ``below`` in the open notebook
        (``bridge``: a side panel's), for the user to accept or reject; ``on_decided`` is told."""
        staging = self.services.staging
        return await stage_insert(
            staging, bridge, source, below=below, cell_type=cell_type, on_decided=on_decided
        )

    def pending_reviews(self, session_id: str) -> int:
        """Staged cell edits of the session still waiting for the user."""
        return len(self.services.staging.pending(session_id))

    async def review(self, outcome: ReviewOutcome, bridge: Any = None) -> None:
        """The user accepted or rejected a staged cell edit (the side panel applied it)."""
        await self.services.staging.decided(outcome, bridge)

    def new_session(self, title: str = "", parent_id: str | None = None) -> Session:
        return self.sessions.create(title, parent_id)

    def latest_session(self) -> Session | None:
        return self.sessions.latest()

    def rename_session(self, session_id: str, title: str) -> Session:
        return self.sessions.rename(session_id, title)

    def delete_session(self, session_id: str) -> None:
        self.sessions.delete(session_id)

    def recorder(self, session_id: str) -> Recorder:
        return self.sessions.recorder(session_id)

    def fork(self, session_id: str, before: str | None = None) -> Session:
        return self.sessions.fork(session_id, before)

    def import_session(self, data: str, dropped: list[str] | None = None) -> Session:
        return self.sessions.import_session(data, dropped)

    # ------------------------------------------------------------ running

    @property
    def generate_titles(self) -> bool:
        return self.runner.generate_titles

    @generate_titles.setter
    def generate_titles(self, value: bool) -> None:
        self.runner.generate_titles = value

    def add_user_message(
        self,
        session_id: str,
        text: str,
        *,
        agent: str = "build",
        model: str | None = None,
        files: list[tuple[str, str, str | None]] | None = None,
        subtask: tuple[str, str] | None = None,
    ) -> UserMessage:
        return self.runner.add_user_message(
            session_id, text, agent=agent, model=model, files=files, subtask=subtask
        )

    async def run(
        self,
        session_id: str,
        model: ResolvedModel | None = None,
        handle: RunHandle | None = None,
        *,
        kind: RunKind = "prompt",
    ) -> None:
        await self.runner.run(session_id, model, handle, kind=kind)

    async def prompt(
        self,
        text: str,
        *,
        session_id: str | None = None,
        agent: str = "build",
        model: str | None = None,
        handle: RunHandle | None = None,
        resolved: ResolvedModel | None = None,
        instructions: str | None = None,
    ) -> str:
        return await self.runner.prompt(
            text,
            session_id=session_id,
            agent=agent,
            model=model,
            handle=handle,
            resolved=resolved,
            instructions=instructions,
        )

    def titles_pending(self) -> bool:
        """Whether a session's title is still on its way (the run that asked ended already)."""
        return bool(self.runner.titles.pending)

    async def settle_titles(self, timeout: float = 5.0) -> None:
        """Give titles still coming up to ``timeout`` seconds (a command about to exit)."""
        await self.runner.titles.settle(timeout)

    async def compact(
        self, session_id: str, model: ResolvedModel | None = None, handle: RunHandle | None = None
    ) -> None:
        await self.runner.compact(session_id, model, handle)

    def stop(self, session_id: str | None = None) -> int:
        return self.runner.stop(session_id)

    def busy(self, session_id: str) -> bool:
        return self.runner.busy(session_id)

    def run_handle(self, session_id: str) -> RunHandle | None:
        return self.runner.run_handle(session_id)

    def running(self) -> list[RunHandle]:
        return self.runner.running()

    # ------------------------------------------------------------ inline completion

    def completion_model(self) -> str | None:
        return self.inline.model() if self.inline is not None else None

    def complete_inline(self, ctx: InlineContext, session_id: str | None) -> AsyncIterator[str]:
        """The suggestion at the cursor of ``ctx``, streamed; its cost goes to ``session_id``."""
        if self.inline is None:
            raise RuntimeError("this runtime was built without inline completions")
        return self.inline.stream(ctx, session_id)
