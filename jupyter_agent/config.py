"""One pydantic ``Config``, merged from defaults, files, environment and flags (in that order).

The admin's system file (``system_config.py``) is read first; the keys it locks are taken
out of every later layer, and its permission rules are a floor no later rule loosens.
A project file is applied only once the user trusted its content (``trust.py``); one that
is new or changed since is left out and listed in ``Config.untrusted``.

Keys are validated so a typo in ``jupyter-agent.json`` is an error that names the file
and the key, not a silently ignored setting. API keys never live here: they are read from
the environment at request time and never stored or logged.
"""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from jupyter_agent import system_config, trust, trust_changes
from jupyter_agent.context.truncate import MAX_BYTES, MAX_LINES, MAX_SAVED_BYTES
from jupyter_agent.core import nesting
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.mcp.config import McpServerConfig, ServerName, shown
from jupyter_agent.tools.protected import project_root  # noqa: F401  (its home; callers import it here)

PROJECT_FILE = "jupyter-agent.json"
_LAYERS = ("defaults", "environment", "flags")
"""Entries of ``Config.sources`` that are not files."""
Action = Literal["allow", "ask", "deny"]


class ConfigError(UsageFailure, ValueError):
    """A config file or value is invalid; the message names the file and the key."""


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

    @field_validator("api_base")
    @classmethod
    def _api_base_is_a_url(cls, value: str | None) -> str | None:
        """A typo here would otherwise retry for half a minute against a nonsense address."""
        return check_url(value) if value else value

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
        """The key for the configured endpoint, read from the environment right now."""
        name = self.api_key_source()
        return os.environ.get(name) if name else None

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
    if _secret_name(name) and isinstance(value, str) and value:
        return "***"
    return value


def _secret_name(name: str) -> bool:
    lowered = name.lower().replace("-", "_")
    return any(w in lowered for w in _SECRET_WORDS) and not lowered.endswith(("_env", "tokens"))


def option_secrets(config: Config) -> dict[str, str]:
    """Literal secrets the agent sends from its options (``models.<id>.options.api_key``,
    an ``extra_headers`` token …), value → where it is set: hidden like any key."""
    found: dict[str, str] = {}

    def walk(value: Any, where: str, name: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, f"{where}.{k}", str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, where, name)
        elif isinstance(value, str) and value and _secret_name(name):
            found[value] = where

    for model_id, model in config.models.items():
        walk(model.options, f"models.{model_id}.options", "")
    for agent_name, agent in config.agent.items():
        walk(agent.options, f"agent.{agent_name}.options", "")
    return found


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _describe(exc: ValidationError) -> str:
    fields = set(Config.model_fields)
    lines = []
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden" and err["loc"] in [(k,) for k in ADMIN_ONLY]:
            what = _ADMIN_WHAT[str(err["loc"][0])]
            msg = f"only the administrator's file ({system_config.SYSTEM_FILE}) can {what}"
        elif err["type"] == "extra_forbidden" and len(err["loc"]) == 1:
            close = difflib.get_close_matches(str(err["loc"][0]), fields, n=1)
            if close:
                msg += f" (did you mean '{close[0]}'?)"
        lines.append(f"{key}: {msg}")
    return "; ".join(lines)


def _read_file(path: Path, *, admin: bool = False, raw: bytes | None = None) -> dict[str, Any]:
    try:
        raw = path.read_bytes() if raw is None else raw
        data = nesting.loads(raw.decode("utf-8-sig"))  # Notepad writes a BOM
    except nesting.TooDeep as exc:
        raise ConfigError(f"{path}: the JSON is {exc}; a config file is a few levels at most") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a JSON object")
    if admin:  # the one file that may lock keys
        try:
            locked = system_config.check_locked(data.pop("locked", []), Config.model_fields)
        except ValueError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        data["locked"] = list(locked)
        data["trusted"] = _trusted_paths(path, data.pop("trusted", []))
        required = data.get("require_contained_kernel", False)
        if not isinstance(required, bool):
            raise ConfigError(f"{path}: require_contained_kernel: must be true or false")
    try:
        Config.model_validate({k: v for k, v in data.items() if not (admin and k in ADMIN_ONLY)})
    except ValidationError as exc:
        raise ConfigError(f"{path}: {_describe(exc)}") from None
    return data


ADMIN_ONLY = ("locked", "trusted", "require_contained_kernel")
"""Keys only the admin's file may hold: the keys it locks, the paths it trusts for everyone,
whether the agent may run code only in a contained kernel."""
_ADMIN_WHAT = {
    "locked": "lock settings",
    "trusted": "trust paths for everyone",
    "require_contained_kernel": "require a contained kernel",
}


def _trusted_paths(path: Path, value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ConfigError(f'{path}: trusted: must be a list of paths or globs, e.g. ["/srv/courses"]')
    return [v.strip() for v in value]


def global_config_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "jupyter-agent"


def find_project_file(start: Path, looked: list[Path] | None = None) -> Path | None:
    """The nearest ``jupyter-agent.json`` from ``start`` up to the filesystem root
    (``looked`` collects every place tried, for the kernel's config watch)."""
    return next(iter(project_files(start, looked)), None)


def project_files(start: Path, looked: list[Path] | None = None) -> Iterator[Path]:
    """Each ``jupyter-agent.json`` from ``start`` up to the filesystem root, nearest first
    (lazily: the loader stops at the first one trusted)."""
    for folder in (start, *start.parents):
        candidate = folder / PROJECT_FILE
        if looked is not None:
            looked.append(candidate)
        if candidate.is_file():
            yield candidate


def _from_env(env: Mapping[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for var, key in (
        ("JUPYTER_AGENT_MODEL", "model"),
        ("JUPYTER_AGENT_API_BASE", "api_base"),
        ("JUPYTER_AGENT_SMALL_MODEL", "small_model"),
    ):
        if env.get(var):
            data[key] = env[var]
    if data.get("api_base"):
        try:
            check_url(data["api_base"])
        except ValueError as exc:
            raise ConfigError(f"JUPYTER_AGENT_API_BASE: {exc}") from None
    if _truthy(env.get("JUPYTER_AGENT_DISABLE_AUTOCOMPACT")):
        data.setdefault("compaction", {})["auto"] = False
    if _truthy(env.get("JUPYTER_AGENT_DISABLE_PRUNE")):
        data.setdefault("compaction", {})["prune"] = False
    if env.get("JUPYTER_AGENT_OUTPUT_TOKEN_MAX"):
        data["output_token_max"] = output_token_max_from_env(env)
    return data


def output_token_max_from_env(env: Mapping[str, str]) -> int | None:
    """``JUPYTER_AGENT_OUTPUT_TOKEN_MAX`` as a number; also read per prompt (``%env`` in a kernel)."""
    value = env.get("JUPYTER_AGENT_OUTPUT_TOKEN_MAX", "").strip()
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ConfigError(f"JUPYTER_AGENT_OUTPUT_TOKEN_MAX must be a positive integer, got {value!r}")
    return number


def load_config(
    notebook_dir: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    global_dir: Path | None = None,
    system_file: Path | None = None,
) -> Config:
    """Defaults → the admin's file → global file → nearest trusted project file → environment
    → ``overrides``; keys the admin's file locks are taken out of every layer after it."""
    env = os.environ if env is None else env
    sources = ["defaults"]
    looked: list[Path] = []
    admin_path, global_file, _ = source_files(None, env, global_dir, system_file)
    admin = _read_system_file(admin_path, required=system_file is not None or system_config.named_by_env(env))
    locked: list[str] = admin.pop("locked", [])
    admin_trusted: list[str] = admin.pop("trusted", [])
    require_contained = bool(admin.pop("require_contained_kernel", False))
    if admin_path.is_file():
        sources.append(str(admin_path))
    layers = [(str(global_file), _read_file(global_file))] if global_file.is_file() else []
    found = project_files(Path(notebook_dir).resolve(), looked) if notebook_dir else iter(())
    try:
        chosen, pending = trust.split(found, admin_trusted)  # the process's user data folder
    except trust.Unreadable as exc:
        raise ConfigError(f"{exc.path}: cannot be read ({exc.reason})") from None
    if chosen is not None:
        layers.append((str(chosen[0]), _read_file(chosen[0], raw=chosen[1])))
    from_env = _from_env(env)
    if from_env:
        layers.append(("environment", from_env))
    if overrides:
        layers.append(("flags", {k: v for k, v in overrides.items() if v is not None}))
    merged = dict(admin)
    ignored: list[tuple[str, str]] = []
    for where, data in layers:
        if locked:
            data, removed = system_config.strip_locked(data, locked, admin)
            ignored.extend((key, where) for key in removed)
        merged = deep_merge(merged, data)
        sources.append(where)
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {_describe(exc)}") from None
    config._sources = sources
    config._watched = [global_file, *looked, admin_path, trust.store_path()]
    config._untrusted = [_pending(p, raw, admin, layers[:1], locked) for p, raw in pending]
    config._reload = lambda: load_config(notebook_dir, overrides, env, global_dir, system_file)
    if admin_path.is_file():
        config._admin, config._admin_file, config._locked = admin, str(admin_path), tuple(locked)
        config._require_contained = require_contained
    if ignored:
        config._ignored = set(ignored)
        config._notices.append(system_config.notice(str(admin_path), ignored))
    return config


def _pending(
    path: Path, raw: bytes, admin: dict[str, Any], below: list[tuple[str, dict[str, Any]]], locked: list[str]
) -> trust.Pending:
    """What the untrusted file at ``path`` would change over the admin's and global settings."""
    before = deep_merge(dict(admin), below[0][1]) if below else dict(admin)
    try:
        data = _read_file(path, raw=raw)
    except ConfigError as exc:
        return trust.Pending(path, trust.digest(raw), (), str(exc).removeprefix(f"{path}: "))
    if locked:
        data, _ = system_config.strip_locked(data, locked, admin)
    return trust.Pending(path, trust.digest(raw), tuple(trust_changes.describe(data, before)))


def source_files(
    notebook_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    global_dir: Path | None = None,
    system_file: Path | None = None,
    looked: list[Path] | None = None,
) -> tuple[Path, Path, Path | None]:
    """The files ``load_config`` reads, in order: the admin's, the user's global one and the
    nearest project file (None when there is none). The first two may not exist yet: a
    watcher of these paths also sees one appear (``looked`` collects the project places tried)."""
    env = os.environ if env is None else env
    admin = system_file or system_config.system_file(env)
    global_file = (global_dir or global_config_dir(env)) / "config.json"
    project = find_project_file(Path(notebook_dir).resolve(), looked) if notebook_dir else None
    return admin, global_file, project


def _read_system_file(path: Path, *, required: bool) -> dict[str, Any]:
    """The admin's file (with its ``locked`` list), or nothing when there is none. A path
    named on purpose must exist: a typo would otherwise drop every lock without a word."""
    if not path.exists():
        if required:
            raise ConfigError(
                f"{system_config.SYSTEM_FILE_VAR}: {path} does not exist; "
                "point it at the administrator's config.json or unset it"
            )
        return {}
    return _read_file(path, admin=True)
