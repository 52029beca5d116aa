"""The agent as a user drives it: sessions, prompts, compaction, stop — for every front end.

The magics, the widget, the side panel and the headless CLI all hold one ``Runtime``.
Prompts to one session queue behind each other (two ``%agent`` cells in a row never
interleave); Stop aborts the running step and everything queued behind it keeps going.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_agent.agent.agents import AgentInfo, get_agent, runnable_agent
from jupyter_agent.agent.budget import Budget
from jupyter_agent.agent.compaction import create_compaction
from jupyter_agent.agent.loop import AgentLoop, LoopSettings
from jupyter_agent.agent.permissions import PermissionManager
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.tool_runner import ToolEnv, ToolLimits
from jupyter_agent.config import Config
from jupyter_agent.core import ids
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import SessionCreated, SessionDeleted
from jupyter_agent.core.messages import FilePart, Session, SubtaskPart, TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.registry import ToolRegistry, default_registry


class ConfigurationError(Exception):
    """No model configured: the message says how to set one (``for_cli`` in a terminal)."""

    def __init__(self, message: str, for_cli: str | None = None) -> None:
        super().__init__(message)
        self.for_cli = for_cli or message


NO_MODEL = (
    "No model is configured for jupyter-agent.\n"
    "Set one of:\n"
    "  - the environment variable JUPYTER_AGENT_MODEL (e.g. anthropic/claude-sonnet-4-5,\n"
    "    openai/gpt-5, ollama/qwen2.5-coder) and the provider's API key variable;\n"
    '  - a jupyter-agent.json next to the notebook: {"model": "openai/gpt-5"};\n'
    "  - per call: %agent --model openai/gpt-5 …  (or jupyter-agent run --model …)."
)
NO_MODEL_CLI = (
    "no model is configured: pass --model (e.g. --model openai/gpt-5), set JUPYTER_AGENT_MODEL, "
    'or put {"model": "openai/gpt-5"} in jupyter-agent.json in this folder'
)


@dataclass
class Runtime:
    """Owns the store, bus, model client, tools and permissions for one notebook/folder."""

    config: Config
    store: SqliteStore
    project_root: Path
    working_dir: Path
    notebook_path: str | None = None
    interactive: bool = False
    bus: Bus = field(default_factory=Bus)
    tools: ToolRegistry | None = None
    """The tool registry; the default file/shell tools (plus ``task``) when not given."""
    client: Any = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Adapter services for tools (kernel shell for ``python``, notebook bridge …)."""
    system_builder: Callable[[AgentInfo, str], str] | None = None
    generate_titles: bool = True
    """Name sessions after the first exchange (one small extra model call)."""

    def __post_init__(self) -> None:
        from jupyter_agent.config import option_secrets
        from jupyter_agent.core.redaction import register, register_secret

        register([self.config.api_key_env], self.config.redact)  # hidden on every way out
        for value, where in option_secrets(self.config).items():
            register_secret(value, where)
        self.registry: ToolRegistry = self.tools or default_registry(self.project_root)
        if self.client is None:
            from jupyter_agent.providers.litellm_client import LiteLLMClient

            self.client = LiteLLMClient(max_retries=self.config.retries)
        self.permissions = PermissionManager(self.bus, self.config, interactive=self.interactive)
        self._locks: dict[str, asyncio.Lock] = {}
        self._loops: dict[str, AgentLoop] = {}
        self._tasks: dict[str, set[asyncio.Task[Any]]] = {}
        self.todos: dict[str, Any] = {}
        self.extra.setdefault("todos", self.todos)
        self.extra.setdefault("runtime", self)
        self.extra.setdefault("permission_rule", self.permissions.action)
        from jupyter_agent.agent.task_tool import run_subtask

        self.extra.setdefault("subtask_runner", run_subtask)
        from jupyter_agent.storage.spill import cleanup

        cleanup(self.store.path.parent)  # 7-day retention of saved tool outputs
        from jupyter_agent.agent.recovery import recover_abandoned

        recover_abandoned(self.store)  # parts left "running" by a killed process

    # ------------------------------------------------------------ sessions

    def new_session(self, title: str = "", parent_id: str | None = None) -> Session:
        import datetime as dt

        from jupyter_agent.core.clock import now_ms

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

    def sessions(self) -> list[Session]:
        return [s for s in self.store.list_sessions(self.notebook_path) if s.parent_id is None]

    def latest_session(self) -> Session | None:
        sessions = self.sessions()
        return max(sessions, key=lambda s: s.time.updated) if sessions else None

    def rename_session(self, session_id: str, title: str) -> Session:
        session = self.store.get_session(session_id).model_copy(update={"title": title})
        self.store.update_session(session)
        return session

    def delete_session(self, session_id: str) -> None:
        self.store.delete_session(session_id)
        self.bus.publish(SessionDeleted(session_id=session_id))

    def recorder(self, session_id: str) -> Recorder:
        return Recorder(self.store, self.bus, self.store.get_session(session_id))

    # ------------------------------------------------------------ settings

    def model_for(self, model: str | None = None, agent: str = "build") -> str:
        overrides = self.config.agent.get(agent)
        chosen = model or (overrides.model if overrides else None) or self.config.model
        if not chosen:
            raise ConfigurationError(NO_MODEL, NO_MODEL_CLI)
        return chosen

    def settings(self, model: str) -> LoopSettings:
        from jupyter_agent.providers.models import (
            provider_family,
            register_alias,
            resolve_limits,
            supports_vision,
        )

        cfg = self.config
        configured = cfg.models.get(model)
        unknown_base = (
            register_alias(model, configured.base_model) if configured and configured.base_model else None
        )
        # litellm knows the base model by its own name (GPT-5's window is read from the name)
        known_as = (
            configured.base_model if configured and configured.base_model and not unknown_base else model
        )
        limits, notice = resolve_limits(
            known_as, configured.limit.model_dump(exclude_none=True) if configured else None
        )
        notice = " ".join(n for n in (unknown_base, notice) if n)
        if notice:  # told once per session that uses the model (take_notices)
            self.extra.setdefault("window_notices", {})[model] = notice
        family = provider_family(model)
        from jupyter_agent.config import output_token_max_from_env

        env_max = output_token_max_from_env(os.environ)
        return LoopSettings(
            model=model,
            system=lambda agent: self.system_prompt(agent, model),
            context_limit=limits.context,
            input_limit=limits.input,
            output_limit=limits.output,
            auto_compact=cfg.compaction.auto,
            prune=cfg.compaction.prune,
            reserved=cfg.compaction.reserved,
            output_token_max=env_max or (cfg.output_token_max or 32_000),
            tail_turns=cfg.compaction.tail_turns,
            preserve_recent_tokens=cfg.compaction.preserve_recent_tokens,
            max_steps=cfg.steps,
            supports_vision=supports_vision(known_as),
            # litellm chat format: only Anthropic-style APIs take images inside tool results
            media_in_tool_results=family in ("anthropic", "bedrock", "vertex"),
            api_base=cfg.api_base,
            # local OpenAI-compatible servers rarely need a key, but the client requires one
            api_key=cfg.api_key() or ("not-needed" if cfg.api_base else None),
            agent_overrides={k: v.model_dump(exclude_none=True) for k, v in cfg.agent.items()},
            compaction_model=cfg.compaction.model,
            options=cfg.options_for,
            budget=Budget(cfg.budget.session_usd, cfg.budget.turn_usd),
        )

    def preflight(self, model: str, *, cli: bool = False) -> str | None:
        """Why a prompt cannot start (no API key for a hosted provider), in words a user can act on.

        ``cli``: the command has no kernel or ``%env``; it reads the shell's environment.
        """
        if self.config.api_base or self.config.api_key():
            return None
        from jupyter_agent.providers.models import missing_keys

        missing = missing_keys(model)
        if not missing:
            return None
        var = missing[0]
        if cli:
            return (
                f"No API key for {model}: set the environment variable {var} (export {var}=...) "
                "and run again. For a local server set api_base instead (--api-base, "
                'JUPYTER_AGENT_API_BASE or "api_base" in jupyter-agent.json).'
            )
        return (
            f"No API key for {model}: set {var} in the kernel's environment "
            f"(for example `%env {var}=...` or export it before starting Jupyter), then run the "
            "prompt again. For a local server set api_base instead (JUPYTER_AGENT_API_BASE or "
            "jupyter-agent.json); see `%agent config` for what is configured now."
        )

    @property
    def notices(self) -> list[str]:
        return self.extra.setdefault("notices", [])

    def take_notices(self, session_id: str, model: str) -> list[str]:
        """Notices a run in ``session_id`` should show: the pending ones (then cleared) and,
        once per session, that ``model``'s context window is unknown (after ``settings``)."""
        taken, self.notices[:] = list(self.notices), []
        told: set[tuple[str, str]] = self.extra.setdefault("window_told", set())
        window = self.extra.get("window_notices", {}).get(model)
        if window and (session_id, model) not in told:
            told.add((session_id, model))
            taken.append(window)
        return taken

    def system_prompt(self, agent: AgentInfo, model: str) -> str:
        if self.system_builder is not None:
            return self.system_builder(agent, model)
        from jupyter_agent.agent.system_prompt import build_for_runtime

        return build_for_runtime(self, agent, model)

    def tool_env(self) -> ToolEnv:
        store_dir = self.store.path.parent

        def save(text: str) -> str:
            from jupyter_agent.core.redaction import redact
            from jupyter_agent.storage.spill import save_output

            return str(save_output(store_dir, redact(text)))

        return ToolEnv(
            registry=self.registry,
            allowed=None,
            project_root=self.project_root,
            working_dir=self.working_dir,
            save_output=save,
            limits=ToolLimits(
                max_lines=self.config.tool_output.max_lines,
                max_bytes=self.config.tool_output.max_bytes,
            ),
            extra=self.extra,
        )

    # ------------------------------------------------------------ running

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

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
        """Record a prompt: text, optional files (mime, url, name) or an ``@agent`` subtask."""
        get_agent(agent)
        self._finish_revert(session_id)
        recorder = self._loops[session_id].recorder if session_id in self._loops else None
        # only writes: a running loop's recorder sees the prompt, otherwise nobody reads it
        rec = recorder or Recorder(self.store, self.bus, self.store.get_session(session_id), load=False)
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
        for mime, url, name in files or []:
            rec.part(FilePart(id=ids.ascending("prt"), **common, mime=mime, url=url, filename=name))
        return message

    async def run(self, session_id: str, model: str | None = None) -> None:
        """Run the loop of a session until done (queued behind a running one)."""
        async with self._lock(session_id):
            self.claim(session_id)
            try:
                await self._run_locked(session_id, model)
            finally:
                self.store.leases.release(session_id)

    async def _run_locked(self, session_id: str, model: str | None) -> None:
        await self.start_mcp()
        recorder = self.recorder(session_id)
        chosen = self.model_for(model)
        loop = AgentLoop(recorder, self.client, self.tool_env(), self.settings(chosen), self._asker(recorder))
        self._loops[session_id] = loop
        task = asyncio.current_task()
        if task is not None:
            self._tasks.setdefault(session_id, set()).add(task)
        try:
            await loop.run()
        finally:
            self._loops.pop(session_id, None)
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
    ) -> str:
        """Send a prompt (``@explore …`` / ``@general …`` start a subtask) and run the loop."""
        runnable_agent(agent)  # before a session is created
        chosen = self.model_for(model, agent)
        session_id = session_id or self.new_session().id
        self.claim(session_id)  # before anything is written: a busy session is refused at once
        try:
            subtask = _parse_subtask(text)
            self.add_user_message(session_id, text, agent=agent, model=model, subtask=subtask)
            await self.run(session_id, chosen)
            if self.generate_titles:
                from jupyter_agent.agent.title import generate_title

                await generate_title(self, session_id, chosen)
        finally:
            self.store.leases.release(session_id)
        return session_id

    def claim(self, session_id: str) -> None:
        """Take the session's lease (``SessionBusyError`` when another process runs it);
        the first claim closes what a dead holder left running. Pair with ``release``."""
        self.store.get_session(session_id)
        if self.store.leases.claim(session_id):
            from jupyter_agent.agent.recovery import close_orphans

            close_orphans(self.store, session_id)

    async def compact(self, session_id: str, model: str | None = None) -> None:
        """Manual compaction (``%compact``): summarise now, then stop."""
        chosen = self.model_for(model)
        self._finish_revert(session_id)
        rec = self.recorder(session_id)
        last_user = next((m.info for m in reversed(rec.window()) if isinstance(m.info, UserMessage)), None)
        template = last_user or UserMessage(id="", session_id=session_id)
        create_compaction(rec, template, auto=False, overflow=False)
        await self.run(session_id, chosen)

    async def start_mcp(self) -> None:
        """Start the configured MCP servers on first use and (re)sync their tools."""
        if self.config.mcp:
            from jupyter_agent.mcp.tools import attach

            await attach(self)

    def _finish_revert(self, session_id: str) -> None:
        """A new prompt or a compaction makes a pending revert final."""
        from jupyter_agent.agent.revert import cleanup

        cleanup(self, session_id)

    def fork(self, session_id: str, before: str | None = None) -> Session:
        """Copy the session up to (not including) ``before`` into a new session."""
        from jupyter_agent.session.fork import fork_session

        source = self.store.get_session(session_id)
        history = self.recorder(session_id).history()
        if before is not None and before not in {m.info.id for m in history}:
            raise KeyError(f"No message '{before}' in session {session_id}.")
        titles = [s.title for s in self.store.list_sessions(None)]
        session, messages = fork_session(source, history, before, titles)
        self._store_copy(session, messages)
        return session

    def import_session(self, data: str, dropped: list[str] | None = None) -> Session:
        """Restore a JSON export as a new session (fresh ids). File changes naming paths
        outside this project are left out (added to ``dropped``): revert never writes there."""
        from jupyter_agent.agent.outside import drop_outside_changes
        from jupyter_agent.session.export import SessionExport
        from jupyter_agent.session.fork import copy_messages

        export = SessionExport.model_validate_json(data)
        session = export.session.model_copy(
            update={
                "id": ids.ascending("ses"),
                "notebook_path": self.notebook_path,
                "parent_id": None,
                "revert": None,
            }
        )
        rules = self.permissions.rules_for("build")
        messages, outside = drop_outside_changes(export.messages, self.project_root, rules)
        if dropped is not None:
            dropped.extend(outside)
        self._store_copy(session, copy_messages(messages, session.id))
        return session

    def _store_copy(self, session: Session, messages: list[Any]) -> None:
        self.store.create_session(session)
        for m in messages:
            self.store.update_message(m.info)
            for p in m.parts:
                self.store.update_part(p)
        self.bus.publish(SessionCreated(session=session))

    def stop(self, session_id: str | None = None) -> int:
        """Abort running steps and cancel their tasks; returns how many were stopped."""
        ids_ = [session_id] if session_id else list(self._tasks)
        count = 0
        for sid in ids_:
            loop = self._loops.get(sid)
            if loop is not None and loop.current_runner is not None:
                loop.current_runner.abort.set()
            self.permissions.cancel_all(sid)
            for task in list(self._tasks.get(sid, ())):
                task.cancel()
                count += 1
        return count

    def busy(self, session_id: str) -> bool:
        return self._lock(session_id).locked()

    def _asker(self, recorder: Recorder) -> Any:
        """The tools' ``ask``: the tool runner puts message and call ids in the metadata."""

        async def ask(permission: str, patterns: list[str], title: str, metadata: dict[str, Any]) -> None:
            meta = dict(metadata)
            await self.permissions.ask(
                recorder.session.id,
                str(meta.pop("message_id", "")),
                meta.pop("call_id", None),
                permission,
                patterns,
                title,
                meta,
            )

        return ask


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
