"""Runs sessions: queues prompts per session, runs the loop, stops, compacts.

Prompts to one session queue behind each other (two ``%agent`` cells in a row never
interleave); Stop aborts the running step and everything queued behind it keeps going.
A session's lease (``store.leases``) keeps another process from running it at the same time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.agent.compaction import create_compaction
from jupyter_agent.agent.lifecycle import Outcome, is_local
from jupyter_agent.agent.loop import AgentLoop
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.recovery import close_orphans
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.sessions import SessionService
from jupyter_agent.agent.title import TitleTasks
from jupyter_agent.agent.workspace import Workspace
from jupyter_agent.core import ids, unicode
from jupyter_agent.core.agents import get_agent, runnable_agent
from jupyter_agent.core.events import RunKind, RunStarted
from jupyter_agent.core.messages import FilePart, SubtaskPart, TextPart, UserMessage
from jupyter_agent.core.model import ResolvedModel
from jupyter_agent.storage import lock_wait


@dataclass
class Runner:
    """Runs the loop of the sessions of one workspace (built by ``agent/compose.py``)."""

    workspace: Workspace
    sessions: SessionService
    generate_titles: bool = True
    """Name sessions after the first exchange (one small extra model call)."""
    interactive: bool = False
    """How a run asks for permission when its front end does not say (``RunHandle``)."""
    _loops: dict[str, AgentLoop] = field(default_factory=dict)
    _runs: dict[str, RunHandle] = field(default_factory=dict)
    _tasks: dict[str, set[asyncio.Task[Any]]] = field(default_factory=dict)
    _queued: dict[str, int] = field(default_factory=dict)
    """Runs of a session waiting for its lock (a second prompt while one runs)."""
    models: dict[str, ResolvedModel] = field(default_factory=dict)
    """The model each session last ran with in this process (a view's gauge window)."""
    titles: TitleTasks = field(default_factory=TitleTasks)

    def add_user_message(
        self,
        session_id: str,
        text: str,
        *,
        agent: str = "build",
        model: str | None = None,
        files: list[tuple[str, str, str | None]] | None = None,
        subtask: tuple[str, str] | None = None,
        instructions: str | None = None,
    ) -> UserMessage:
        """Record a prompt: text, optional files (mime, url, name) or an ``@agent`` subtask;
        ``instructions``: more text for the model that the views do not show (a fix's
        plumbing: which tool, which cell id)."""
        get_agent(agent)
        text = unicode.scrub(text)  # the front ends refuse such a prompt; this keeps the store safe
        self.sessions.finish_revert(session_id)
        store, bus = self.workspace.store, self.workspace.bus
        recorder = self._loops[session_id].recorder if session_id in self._loops else None
        # only writes: a running loop's recorder sees the prompt, otherwise nobody reads it
        rec = recorder or Recorder(store, bus, store.get_session(session_id), load=False)
        message = UserMessage(id=ids.ascending("msg"), session_id=session_id, agent=agent, model=model or "")
        rec.message(message)
        common = {"session_id": session_id, "message_id": message.id}
        if subtask is not None:
            sub_agent, prompt = subtask
            rec.part(
                SubtaskPart(
                    id=ids.ascending("prt"),
                    **common,
                    prompt=prompt,
                    description=prompt[:60],
                    agent=sub_agent,
                )
            )
        else:
            rec.part(TextPart(id=ids.ascending("prt"), **common, text=text))
        if instructions:
            rec.part(
                TextPart(id=ids.ascending("prt"), **common, text=unicode.scrub(instructions), synthetic=True)
            )
        for mime, url, name in files or []:
            rec.part(FilePart(id=ids.ascending("prt"), **common, mime=mime, url=url, filename=name))
        return message

    async def run(
        self,
        session_id: str,
        model: ResolvedModel | None = None,
        handle: RunHandle | None = None,
        *,
        kind: RunKind = "prompt",
    ) -> None:
        """Run the loop of a session until done (queued behind a running one), between a
        ``RunStarted`` and a ``RunFinished`` on the bus (published once the lock is free).

        ``model``: resolved by the caller (default: the configured one); ``handle``: how this
        run asks and where its notebook edits go (the front end's); by default not interactive
        unless the runner is."""
        chosen = model or self.workspace.resolve_model()
        queued, bus = self._queued, self.workspace.bus
        queued[session_id] = queued.get(session_id, 0) + 1
        outcome: Outcome | None = None
        waiting = True
        try:
            async with self.sessions.locks.lock(session_id):
                queued[session_id] -= 1
                waiting = False
                await self._wait_writable(session_id)
                self.claim(session_id)
                outcome, since = Outcome(), ids.ascending("msg")
                self.models[session_id] = chosen
                local = is_local(chosen.name, self.workspace.config.api_base)
                bus.publish(RunStarted(session_id=session_id, kind=kind, model=chosen, local=local))
                try:
                    await self._run_locked(
                        session_id, chosen, handle or RunHandle(interactive=self.interactive)
                    )
                except BaseException as exc:
                    outcome.caught(exc)
                    raise
                finally:
                    self.workspace.store.leases.release(session_id)
                    outcome.read(self.workspace.store, session_id, since)
        finally:
            if waiting:  # stopped while it waited for the lock
                queued[session_id] -= 1
            if outcome is not None:
                bus.publish(outcome.event(session_id, kind, queued=queued.get(session_id, 0) > 0))

    async def _run_locked(self, session_id: str, model: ResolvedModel, handle: RunHandle) -> None:
        ws = self.workspace
        await ws.start_mcp()
        recorder = self.sessions.recorder(session_id)
        settings = ws.settings(model)
        loop = AgentLoop(recorder, ws.client, ws.tool_env(), settings, ws.permissions, run=handle)
        self._loops[session_id] = loop
        self._runs[session_id] = handle
        task = asyncio.current_task()
        if task is not None:
            self._tasks.setdefault(session_id, set()).add(task)
        try:
            await loop.run()
        finally:
            self._loops.pop(session_id, None)
            self._runs.pop(session_id, None)
            if task is not None:
                self._tasks.get(session_id, set()).discard(task)
            recorder.flush()

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
        """Send a prompt (``@explore …`` / ``@general …`` start a subtask) and run the loop.

        ``model``: the one a flag or picker asked for; ``resolved``: the model already decided
        for it (``agent/send.py``), else decided here. A new session's title is asked for
        beside the answer and never waited for: the run ends (and its lease goes) when the
        answer does; a title that comes later is stored and published then."""
        runnable_agent(agent)  # before a session is created
        chosen = resolved or self.workspace.resolve_model(model, agent)
        await self._wait_writable(session_id or "")  # another process's lock: said, and stoppable
        session_id = session_id or self.sessions.create().id
        self.claim(session_id)  # before anything is written: a busy session is refused at once
        try:
            subtask = _parse_subtask(text)
            asked = chosen.name if model else None  # the model that runs (a locked one replaces a flag's)
            self.add_user_message(
                session_id, text, agent=agent, model=asked, subtask=subtask, instructions=instructions
            )
            # the title is asked for beside the answer, as OpenCode does (not after it)
            title = (
                self.titles.start(self.workspace, self.sessions, session_id, chosen.name)
                if self.generate_titles
                else None
            )
            try:
                await self.run(session_id, chosen, handle, kind="fix" if agent == "fix" else "prompt")
            except BaseException:
                if title is not None:
                    title.cancel()
                raise
        finally:
            self.workspace.store.leases.release(session_id)
        return session_id

    async def _wait_writable(self, session_id: str) -> None:
        """Wait out another process's write lock before writing anything; ``stop`` ends it."""
        task = asyncio.current_task()
        waiting = self._tasks.setdefault(session_id, set())
        if task is not None:
            waiting.add(task)
        try:
            await self.workspace.store.wait_writable()
        finally:
            if task is not None:
                waiting.discard(task)

    def claim(self, session_id: str) -> None:
        """Take the session's lease (``SessionBusyError`` when another process runs it);
        the first claim closes what a dead holder left running. Pair with ``release``."""
        store = self.workspace.store
        store.get_session(session_id)
        if store.leases.claim(session_id):
            close_orphans(store, session_id)

    async def compact(
        self, session_id: str, model: ResolvedModel | None = None, handle: RunHandle | None = None
    ) -> None:
        """Manual compaction (``%compact``, the panel's Compact): summarise now, then stop, with
        ``model`` (resolved), else the model the session last ran with, else the configured one."""
        chosen = model or self.models.get(session_id) or self.workspace.resolve_model()
        self.sessions.finish_revert(session_id)
        rec = self.sessions.recorder(session_id)
        last_user = next((m.info for m in reversed(rec.window()) if isinstance(m.info, UserMessage)), None)
        template = last_user or UserMessage(id="", session_id=session_id)
        create_compaction(rec, template, auto=False, overflow=False)
        await self.run(session_id, chosen, handle, kind="compact")

    def stop(self, session_id: str | None = None) -> int:
        """Abort running steps and cancel their tasks; returns how many were stopped."""
        ids_ = [session_id] if session_id else list(self._tasks)
        lock_wait.waits.stop()  # a write waiting for another process's lock gives up
        count = 0
        for sid in ids_:
            handle = self._runs.get(sid)
            if handle is not None:
                handle.abort.set()
            self.workspace.permissions.cancel_all(sid)
            for task in list(self._tasks.get(sid, ())):
                task.cancel()
                count += 1
        return count

    def busy(self, session_id: str) -> bool:
        return self.sessions.busy(session_id)

    @contextlib.contextmanager
    def asking(self, session_id: str, handle: RunHandle) -> Iterator[None]:
        """A question before the run starts (``agent/trust_prompt.py``): Stop ends it as it
        ends a run."""
        task = asyncio.current_task()
        added = self._runs.setdefault(session_id, handle) is handle  # a running loop keeps its own
        if task is not None:
            self._tasks.setdefault(session_id, set()).add(task)
        try:
            yield
        finally:
            if added:
                self._runs.pop(session_id, None)
            if task is not None:
                self._tasks.get(session_id, set()).discard(task)

    def recorder_for(self, session_id: str) -> Recorder:
        """The running loop's recorder (its next request must see a change), else a fresh one."""
        loop = self._loops.get(session_id)
        return loop.recorder if loop is not None else self.sessions.recorder(session_id)

    def run_handle(self, session_id: str) -> RunHandle | None:
        """The handle of the session's running loop (a sub-agent's run inherits from it)."""
        return self._runs.get(session_id)

    def running(self) -> list[RunHandle]:
        """The handles of every run in progress (a reloaded side panel takes over their edits)."""
        return list(self._runs.values())


def _parse_subtask(text: str) -> tuple[str, str] | None:
    """``@explore find the loader`` → ("explore", "find the loader")."""
    stripped = text.lstrip()
    if not stripped.startswith("@"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    try:
        info = get_agent(name)
    except KeyError:
        return None
    if info.mode != "subagent" or not rest.strip():
        return None
    return name, rest.strip()
