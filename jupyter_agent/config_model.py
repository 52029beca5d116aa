"""What the configuration is: the pydantic shapes of every key, and what a ``Config`` answers
(the admin's floor, a model's options, what ``%agent config`` shows without secrets).

How it is read and merged from defaults, files, environment and flags is ``config.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator

from jupyter_agent import config_origins, credentials, system_config, trust
from jupyter_agent.context.truncate import MAX_BYTES, MAX_LINES, MAX_SAVED_BYTES
from jupyter_agent.mcp.config import McpServerConfig, ServerName, shown

_LAYERS = ("defaults", "environment", "flags")
"""Entries of ``Config.sources`` that are not files."""
Action = Literal["allow", "ask", "deny"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Limit(_Strict):
    context: int | None = Field(default=None, ge=1)
    input: int | None = Field(default=None, ge=1)
    output: int | None = Field(default=None, ge=1)


class ModelConfig(_Strict):
    limit: Limit = Field(default_factory=Limit)
    options: dict[str, Any] = Field(default_factory=dict)
    """litellm call arguments for this model (``thinking``, ``reasoning_effort``, ``temperature``…)."""
    base_model: str | None = None
    """The litellm model this one is priced and sized like: an alias on a LiteLLM proxy
    (``litellm_proxy/claude-sonnet`` → ``anthropic/claude-sonnet-4-5``) has no price of its own."""


class BudgetConfig(_Strict):
    """Spending limits in USD; the loop stops after the step that crosses one."""

    session_usd: float | None = Field(default=None, gt=0)
    turn_usd: float | None = Field(default=None, gt=0)


class CompactionConfig(_Strict):
    auto: bool = True
    prune: bool = True
    tail_turns: int = Field(default=2, ge=0)
    preserve_recent_tokens: int | None = Field(default=None, ge=0)
    reserved: int | None = Field(default=None, ge=0)
    model: str | None = None
    """The model that writes summaries (default: the session's model)."""


class ToolOutputConfig(_Strict):
    max_lines: int = Field(default=MAX_LINES, ge=1)
    max_bytes: int = Field(default=MAX_BYTES, ge=1)
    max_saved_bytes: int = Field(default=MAX_SAVED_BYTES, ge=1)
    """The saved full output of a tool stops here; bash and python stop what wrote more."""


class SandboxConfig(_Strict):
    """The OS sandbox ``bash`` runs in (Linux, bubblewrap; docs/security.md)."""

    enabled: bool = True
    """Run commands in the sandbox where it can start (a notice says when it cannot)."""
    network: bool = True
    """``false``: commands have no network (only their own loopback)."""
    deny_read: list[str] = Field(default_factory=list)
    """More files or folders hidden from commands and refused by the file tools (``~`` allowed)."""
    writable: list[str] = Field(default_factory=list)
    """More folders commands may write besides the project and the temp folder (a cache …)."""


class VerifyConfig(_Strict):
    """``%agent verify`` / ``jupyter-agent verify``: the notebook run again in a fresh kernel."""

    cell_timeout: float = Field(default=600.0, gt=0)
    """Seconds one cell may run before it counts as failed."""
    timeout: float = Field(default=3600.0, gt=0)
    """Seconds the whole verification may take; cells after it are reported as not run."""
    float_tolerance: float = Field(default=1e-6, ge=0, lt=1)
    """Relative difference under which two printed floats count as equal (float noise)."""


class NotebookConfig(_Strict):
    review: Literal["stage", "apply"] = "stage"
    """How the agent's cell edits reach an open notebook: ``stage`` shows each one for Accept /
    Reject first, ``apply`` changes the cells at once. Runs nobody watches always apply."""


MiB = 1024 * 1024


class CheckpointConfig(_Strict):
    """What is recorded before each tool call so that a revert undoes a prompt completely."""

    enabled: bool = True
    max_bytes: int = Field(default=256 * MiB, ge=0)
    """Kernel variables copied per prompt before the agent's code changes them."""
    max_file_bytes: int = Field(default=10 * MiB, ge=0)
    """A larger file is not kept by the project's snapshot (a revert names it)."""
    max_total_bytes: int = Field(default=1024 * MiB, ge=0)
    """What one snapshot of the project keeps in all (smaller files first)."""
    max_files: int = Field(default=20_000, ge=1)
    """Files looked at per snapshot; beyond, the rest of the project is not watched."""
    exclude: list[str] = Field(default_factory=list)
    """More paths (globs relative to the project) the snapshot leaves out."""


class CompletionConfig(_Strict):
    """Inline completion in notebook cells (ghost text from the kernel that holds the data)."""

    enabled: bool | None = None
    """None: on when a model is configured (``%agent complete on|off`` for one kernel)."""
    model: str | None = None
    """The model that completes (default: ``small_model``, else ``model``)."""
    debounce_ms: int = Field(default=300, ge=0, le=2000)
    """How long typing must pause before a completion is asked for (below JupyterLab's 5 s wait)."""
    max_context_tokens: int = Field(default=2000, ge=200, le=32000)
    """What one request may carry: the cell, the live names it uses, the cells above."""
    max_tokens: int = Field(default=128, ge=8, le=2000)
    """The longest suggestion, in tokens."""


class AgentConfig(_Strict):
    model: str | None = None
    prompt: str | None = None
    permission: dict[str, Action | dict[str, Action]] | None = None
    steps: int | None = Field(default=None, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)
    """litellm call arguments for this agent; win over ``models.<id>.options``."""


class KernelRules(_Strict):
    """Rules for one kind of kernel (``kernels.contained`` / ``kernels.ordinary``)."""

    permission: dict[str, Action | dict[str, Action]] | None = None
    """Merged over ``permission`` in that kind of kernel (``"python": "ask"`` in ordinary ones)."""


KernelKindName = Literal["contained", "ordinary"]


class Config(_Strict):
    model: str | None = None
    api_base: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the key (the key itself is never stored)."""
    small_model: str | None = None
    models: dict[str, ModelConfig] = Field(default_factory=dict)
    compaction: CompactionConfig = Field(default_factory=CompactionConfig)
    tool_output: ToolOutputConfig = Field(default_factory=ToolOutputConfig)
    permission: dict[str, Action | dict[str, Action]] = Field(default_factory=dict)
    instructions: list[str] = Field(default_factory=list)
    agent: dict[str, AgentConfig] = Field(default_factory=dict)
    steps: int | None = Field(default=None, ge=1)
    """Most model calls per prompt; the last one may not call tools (default 100)."""
    output_token_max: int | None = Field(default=None, ge=1)
    retries: int = Field(default=4, ge=0, le=20)
    """Retries of a failed model call per step (rate limits, server errors, cut streams)."""
    stream_idle_timeout: float = Field(default=120.0, gt=0)
    """Seconds without a byte from the provider before a model call is retried."""
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    redact: list[str] = Field(default_factory=list)
    """Extra secrets to redact everywhere: names of environment variables, or literal values."""
    mcp: dict[ServerName, McpServerConfig] = Field(default_factory=dict)
    """MCP servers whose tools the agent may use (``jupyter_agent/mcp``)."""
    raise_on_failure: bool = True
    """A cell that blocks for its run (papermill, nbconvert, nbclient, ``--wait``) raises when
    the run fails, so the notebook run stops; false: show the error and go on."""
    headless_session: Literal["new", "continue"] = "new"
    """What the first prompt of a kernel without a live front end goes to: a fresh session
    (reproducible runs) or the notebook's latest one."""
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    protected: list[str] = Field(default_factory=list)
    """More paths (relative to the project, or absolute) that every write to asks about."""
    verify: VerifyConfig = Field(default_factory=VerifyConfig)
    store: str | None = None
    """One folder for every notebook folder's sessions (each keyed by its path), instead of
    ``.jupyter-agent/`` next to the notebooks (``storage/location.py``)."""
    audit: str | None = None
    """The admin's audit trail: a folder for JSON lines, or ``syslog`` (``storage/audit_log.py``)."""
    notebook: NotebookConfig = Field(default_factory=NotebookConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    completion: CompletionConfig = Field(default_factory=CompletionConfig)
    kernels: dict[KernelKindName, KernelRules] = Field(default_factory=dict)
    """Permission rules per kind of kernel: a contained one (inside the sandbox as a whole)
    or an ordinary one (the python tool under a guard); the CLI counts as neither."""
    _sources: list[str] = PrivateAttr(default_factory=list)
    _watched: list[Path] = PrivateAttr(default_factory=list)
    _admin: dict[str, Any] = PrivateAttr(default_factory=dict)
    _admin_file: str | None = PrivateAttr(default=None)
    _locked: tuple[str, ...] = PrivateAttr(default=())
    _notices: list[str] = PrivateAttr(default_factory=list)
    _ignored: set[tuple[str, str]] = PrivateAttr(default_factory=set)
    _untrusted: list[trust.Pending] = PrivateAttr(default_factory=list)
    _reload: Callable[[], Config] | None = PrivateAttr(default=None)
    _require_contained: bool = PrivateAttr(default=False)
    _origins: dict[str, str] = PrivateAttr(default_factory=dict)

    @field_validator("api_base")
    @classmethod
    def _api_base_is_a_url(cls, value: str | None) -> str | None:
        """A typo here would otherwise retry for half a minute against a nonsense address."""
        return check_url(value) if value else value

    @field_validator("store", "audit")
    @classmethod
    def _absolute_folder(cls, value: str | None, info: Any) -> str | None:
        """A relative folder would move with the working directory: each run a new place."""
        syslog = info.field_name == "audit" and (value or "").strip() == "syslog"
        return check_folder(value) if value and not syslog else value

    @property
    def sources(self) -> list[str]:
        """The files and layers that made this config, lowest first."""
        return self._sources

    @property
    def watched(self) -> list[Path]:
        """Every file whose creation, change or removal would change this config: the files
        read and the places looked in (a kernel re-reads when one changes)."""
        read = [Path(s) for s in self._sources if s not in _LAYERS]
        return list(dict.fromkeys([*self._watched, *read]))

    @property
    def admin_file(self) -> str | None:
        """The admin's system file this config was read with (``system_config.py``)."""
        return self._admin_file

    @property
    def require_contained_kernel(self) -> bool:
        """The admin's file requires a contained kernel for the tools that run code."""
        return self._require_contained

    @property
    def untrusted(self) -> list[trust.Pending]:
        """Project files left out because they are new or changed since the user trusted
        them (the front ends ask Trust / Ignore; a headless run refuses)."""
        return self._untrusted

    def reloaded(self) -> Config:
        """The configuration read again with the same arguments (after a trust decision)."""
        return self if self._reload is None else self._reload()

    @property
    def notices(self) -> list[str]:
        """What the user should be told once (locked settings that were ignored)."""
        return self._notices

    def is_locked(self, key: str) -> bool:
        """Whether the admin locked ``key`` (or a key above it: ``permission`` locks ``permission.bash``)."""
        return any(key == k or key.startswith(f"{k}.") for k in self._locked)

    def ignore_locked_flag(self, key: str, shown: str) -> bool:
        """A per-call flag (``--model``) for a locked key: True (and a notice) when it must be
        ignored."""
        if not self.is_locked(key):
            return False
        if (key, "flags") in self._ignored:
            return True  # the same flag, told already (the command passes it to both)
        line = system_config.notice(str(self._admin_file), [(key, shown)])
        if line not in self._notices:
            self._notices.append(line)
        return True

    def permission_floor(self, agent: str = "build", kernel: str | None = None) -> dict[str, Any]:
        """The admin's permission rules for ``agent`` in a ``kernel`` of that kind: no user
        rule makes an action looser."""
        admin = self._admin
        own = ((admin.get("agent") or {}).get(agent) or {}).get("permission") or {}
        kind = (((admin.get("kernels") or {}).get(kernel) or {}).get("permission") or {}) if kernel else {}
        return deep_merge(deep_merge(dict(admin.get("permission") or {}), kind), own)

    def kernel_permission(self, kernel: str | None) -> dict[str, Any] | None:
        """The rules for a kernel of this kind (``kernels.<kind>.permission``), if any."""
        chosen = next((rules for kind, rules in self.kernels.items() if kind == kernel), None)
        return chosen.permission if chosen is not None else None

    def api_key_source(self) -> str | None:
        for name in ("JUPYTER_AGENT_API_KEY", self.api_key_env):
            if name and os.environ.get(name):
                return name
        return None

    def api_key(self) -> str | None:
        """The key for the configured endpoint, read from the environment right now, else
        the one the setup saved for it (``credentials.py``)."""
        name = self.api_key_source()
        if name:
            return os.environ.get(name)
        return credentials.get("JUPYTER_AGENT_API_KEY") if self.api_base else None

    def show_origin(self) -> list[config_origins.Setting]:
        """Each effective key with the source that set it (``%agent config``, the panel)."""
        return config_origins.settings(self.redacted(), self._origins, self._locked)

    def options_for(self, model: str, agent: str = "build") -> dict[str, Any]:
        """The litellm call arguments for ``model`` run by ``agent`` (agent options win).

        ``models`` is keyed by the litellm model string; a key without the provider prefix
        (``claude-sonnet-4-5`` for ``anthropic/claude-sonnet-4-5``) matches too."""
        configured = self.models.get(model) or self.models.get(model.split("/", 1)[-1])
        overrides = self.agent.get(agent)
        return deep_merge(
            dict(configured.options) if configured else {}, overrides.options if overrides else {}
        )

    def redacted(self, model: str | None = None, agent: str = "build") -> dict[str, Any]:
        """What ``%agent config`` shows: the effective settings, no secrets."""
        data = mask_secrets(self.model_dump(exclude_defaults=False))
        chosen = model or (self.agent[agent].model if agent in self.agent else None) or self.model
        if chosen:
            data["options"] = mask_secrets(self.options_for(chosen, agent))
        data["api_key"] = f"set (from ${self.api_key_source()})" if self.api_key_source() else "not set"
        data["sources"] = self.sources
        if self._locked:
            data["locked"] = {"by": self._admin_file, "keys": list(self._locked)}
        if self._untrusted:
            data["untrusted"] = {str(p.path): p.what() for p in self._untrusted}
        data["redact"] = [
            e if e.isidentifier() and e in os.environ else "[REDACTED:redact]" for e in self.redact
        ]

        # from the unmasked values: a reference ("Bearer {env:TOKEN}") is shown as written
        for name, server in data["mcp"].items():
            configured = self.mcp[name].model_dump()
            for key in ("headers", "environment"):
                if key in server:
                    server[key] = {k: shown(v) for k, v in configured[key].items()}
        return data


def check_folder(value: str) -> str:
    if not Path(value.strip()).expanduser().is_absolute():
        raise ValueError(f"{value!r} is not an absolute folder; give one such as /srv/agent or ~/agent")
    return value.strip()


def check_url(value: str) -> str:
    parts = urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(
            f"{value!r} is not a server address; give a URL such as http://localhost:11434 "
            "(Ollama) or http://localhost:8000/v1"
        )
    return value.strip()


_SECRET_WORDS = ("key", "token", "secret", "password", "authorization", "cookie", "credential")


def mask_secrets(value: Any, name: str = "") -> Any:
    """A copy of ``value`` with values under secret-looking names (api_key, Authorization…) hidden."""
    if isinstance(value, Mapping):
        return {k: mask_secrets(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_secrets(v, name) for v in value]
    if secret_name(name) and isinstance(value, str) and value:
        return "***"
    return value


def secret_name(name: str) -> bool:
    lowered = name.lower().replace("-", "_")
    return any(w in lowered for w in _SECRET_WORDS) and not lowered.endswith(("_env", "tokens"))


def deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out
