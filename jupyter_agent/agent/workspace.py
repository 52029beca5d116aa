"""What one notebook or folder gives every run: config, store, bus, model client, tools,
permissions, and the loop settings, system prompt and tool environment built from them.

The session service and the runner read these; nothing here runs a loop or writes a session.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.agent.budget import Budget
from jupyter_agent.agent.checkpoints import Checkpoints
from jupyter_agent.agent.loop_settings import DEFAULT_MAX_STEPS, LoopSettings
from jupyter_agent.agent.permissions import PermissionManager, evaluate
from jupyter_agent.agent.ports import ModelClient
from jupyter_agent.agent.system_prompt import build_for_runtime
from jupyter_agent.agent.tool_runner import ToolEnv, ToolLimits
from jupyter_agent.config import Config, output_token_max_from_env
from jupyter_agent.core.agents import AgentInfo
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.model import OUTPUT_TOKEN_MAX, ResolvedModel
from jupyter_agent.core.model_request import Connection
from jupyter_agent.core.redaction import redact
from jupyter_agent.credentials import get as saved_key
from jupyter_agent.mcp.context import expand
from jupyter_agent.mcp.manager import manager_of
from jupyter_agent.mcp.tools import attach
from jupyter_agent.providers.models import (
    media_in_tool_results,
    missing_keys,
    register_alias,
    resolve_limits,
    supports_vision,
)
from jupyter_agent.storage.spill import new_output_path, save_output
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools import sandbox
from jupyter_agent.tools.registry import ToolRegistry
from jupyter_agent.tools.services import Services


class ConfigurationError(UsageFailure):
    """No model configured: the message says how to set one (``for_cli`` in a terminal)."""

    def __init__(self, message: str, for_cli: str | None = None) -> None:
        super().__init__(message)
        self.for_cli = for_cli or message

    def for_user(self, *, cli: bool = False) -> str:
        return self.for_cli if cli else str(self)


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
class Workspace:
    """The configured pieces of one notebook/folder (built by ``agent/compose.py``)."""

    config: Config
    store: SqliteStore
    bus: Bus
    project_root: Path
    working_dir: Path
    notebook_path: str | None
    registry: ToolRegistry
    client: ModelClient
    permissions: PermissionManager
    services: Services = field(default_factory=Services)
    """Adapters for tools and front ends (kernel shell for ``python``, MCP, notices …)."""
    checkpoints: Checkpoints | None = None
    """What is recorded around tool calls for revert (``agent/checkpoints.py``)."""
    _window_told: set[tuple[str, str]] = field(default_factory=set)
    _sandbox_told: set[str] = field(default_factory=set)
    _config_told: set[str] = field(default_factory=set)

    def model_for(self, model: str | None = None, agent: str = "build") -> str:
        """The model a prompt to ``agent`` uses: the admin's lock, a flag, the agent's, the config's."""
        overrides = self.config.agent.get(agent)
        default = (overrides.model if overrides else None) or self.config.model
        if model and model != default and self.config.ignore_locked_flag("model", f"--model {model}"):
            model = None  # the admin's model, whatever a flag or the panel's picker says
        chosen = model or default
        if not chosen:
            raise ConfigurationError(NO_MODEL, NO_MODEL_CLI)
        return chosen

    def resolve_model(self, requested: str | None = None, agent: str = "build") -> ResolvedModel:
        """The model a run uses, decided once: ``model_for`` then ``describe``."""
        return self.describe(self.model_for(requested, agent))

    def describe(self, model: str) -> ResolvedModel:
        """``model`` with its window and capabilities (litellm's map, then ``models.<id>``)."""
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
        env_max = None if cfg.is_locked("output_token_max") else output_token_max_from_env(os.environ)
        return ResolvedModel(
            name=model,
            limits=limits,
            reserved=cfg.compaction.reserved,
            output_token_max=env_max or (cfg.output_token_max or OUTPUT_TOKEN_MAX),
            vision=supports_vision(known_as),
            media_in_tool_results=media_in_tool_results(model),
            notice=" ".join(n for n in (unknown_base, notice) if n) or None,
        )

    def connection(self, model: str) -> Connection:
        """Where ``model``'s calls go and with which key: the same for a run's steps, its
        summaries and the session's title. A server at ``api_base`` gets the configured key
        (or the saved one), else ``not-needed``: local servers rarely check one, but the
        client requires one. A hosted provider reads its own variable (``ANTHROPIC_API_KEY``);
        when that is unset, the key the setup saved for it is sent."""
        cfg = self.config
        key = cfg.api_key()
        if cfg.api_base:
            return Connection(api_base=cfg.api_base, api_key=key or "not-needed")
        if key is None:
            key = next((k for k in map(saved_key, missing_keys(model)) if k), None)
        return Connection(api_key=key)

    def settings(self, model: ResolvedModel) -> LoopSettings:
        """What a run of ``model`` reads from the config (the config as it is now)."""
        cfg = self.config
        connection = self.connection(model.name)
        return LoopSettings(
            model=model,
            system=lambda agent: self.system_prompt(agent, model.name),
            compaction=cfg.compaction,
            agents=dict(cfg.agent),
            max_steps=cfg.steps or DEFAULT_MAX_STEPS,
            api_base=connection.api_base,
            api_key=connection.api_key,
            options=cfg.options_for,
            budget=Budget(cfg.budget.session_usd, cfg.budget.turn_usd),
            model_locked=cfg.is_locked("model"),
            retries=cfg.retries,
        )

    def preflight(self, model: str, *, cli: bool = False) -> str | None:
        """Why a prompt cannot start (no API key for a hosted provider), in words a user can act on.

        ``cli``: the command has no kernel or ``%env``; it reads the shell's environment.
        """
        if self.config.api_base or self.config.api_key():
            return None

        missing = missing_keys(model)
        if not missing or any(saved_key(name) for name in missing):
            return None
        var = missing[0]
        if cli:
            return (
                f"No API key for {model}: set the environment variable {var} (export {var}=...) "
                "or save one with `jupyter-agent setup`, and run again. For a local server set "
                'api_base instead (--api-base, JUPYTER_AGENT_API_BASE or "api_base" in jupyter-agent.json).'
            )
        return (
            f"No API key for {model}: set {var} in the kernel's environment "
            f"(for example `%env {var}=...` or export it before starting Jupyter), then run the "
            "prompt again, or save one in the side panel's setup (`jupyter-agent setup` in a terminal). "
            "For a local server set api_base instead (JUPYTER_AGENT_API_BASE or jupyter-agent.json); "
            "see `%agent config` for what is configured now."
        )

    @property
    def notices(self) -> list[str]:
        # the config's own (locked settings that were ignored) join them when they first arise
        for line in self.config.notices:
            if line not in self._config_told:
                self._config_told.add(line)
                self.services.notices.append(line)
        return self.services.notices

    def take_notices(self, session_id: str, model: ResolvedModel | None) -> list[str]:
        """Notices a run in ``session_id`` should show: the pending ones (then cleared) and,
        once per session, why ``model``'s context window is a guess."""
        taken, self.notices[:] = list(self.notices), []
        told = self._window_told
        if model is not None and model.notice and (session_id, model.name) not in told:
            told.add((session_id, model.name))
            taken.append(model.notice)
        unconfined = sandbox.start_problem(self.services.sandbox) if "bash" in self.registry else None
        if unconfined and session_id not in self._sandbox_told:  # once per session, like the window
            self._sandbox_told.add(session_id)
            taken.append(sandbox.notice(unconfined))
        return taken

    def system_prompt(self, agent: AgentInfo, model: str) -> str:
        return build_for_runtime(self, agent, model)

    def tool_env(self) -> ToolEnv:
        store_dir = self.store.path.parent

        def save(text: str) -> str:
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
                max_saved_bytes=self.config.tool_output.max_saved_bytes,
            ),
            new_output_file=lambda: new_output_path(store_dir),
            services=self.services,
            checkpoints=self.checkpoints,
        )

    async def start_mcp(self) -> None:
        """Start the configured MCP servers on first use and (re)sync their tools."""
        if self.config.mcp:
            await attach(self)

    async def expand_mcp(self, typed: str, text: str, agent: str = "build") -> str:
        """``text`` with the MCP prompt ``typed`` starts with run and its ``@server:uri``
        resources attached, each checked against ``agent``'s rules (``mcp/context.py``)."""
        if not self.config.mcp:
            return text
        rules = self.permissions.rules_for(agent)

        def rule(permission: str, value: str) -> str:
            return evaluate(rules, permission, [value], default="allow")

        return await expand(manager_of(self.services), typed, text, rule)
