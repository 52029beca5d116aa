"""One pydantic ``Config`` (its shapes: ``config_model.py``), merged from defaults, files,
environment and flags (in that order).

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
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from jupyter_agent import config_origins, credentials, system_config, trust, trust_changes
from jupyter_agent.config_model import (
    Action,
    AgentConfig,
    CheckpointConfig,
    CompactionConfig,
    CompletionConfig,
    Config,
    KernelRules,
    ModelConfig,
    NotebookConfig,
    SandboxConfig,
    ToolOutputConfig,
    VerifyConfig,
    check_folder,
    check_url,
    deep_merge,
    mask_secrets,
    secret_name,
)
from jupyter_agent.core import nesting
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.tools.protected import project_root  # noqa: F401  (its home; callers import it here)

PROJECT_FILE = "jupyter-agent.json"
__all__ = [  # re-exported: the shapes live in config_model.py, callers import them from here
    "Action",
    "AgentConfig",
    "CheckpointConfig",
    "CompactionConfig",
    "CompletionConfig",
    "Config",
    "KernelRules",
    "ModelConfig",
    "NotebookConfig",
    "SandboxConfig",
    "ToolOutputConfig",
    "VerifyConfig",
    "check_url",
    "deep_merge",
    "mask_secrets",
    "option_secrets",
]


class ConfigError(UsageFailure, ValueError):
    """A config file or value is invalid; the message names the file and the key."""


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


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
    return credentials.config_dir(env)


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
        ("JUPYTER_AGENT_STORE", "store"),
    ):
        if env.get(var):
            data[key] = env[var]
    for var, key, check in (
        ("JUPYTER_AGENT_API_BASE", "api_base", check_url),
        ("JUPYTER_AGENT_STORE", "store", check_folder),
    ):
        if data.get(key):
            try:
                check(data[key])
            except ValueError as exc:
                raise ConfigError(f"{var}: {exc}") from None
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
        elif isinstance(value, str) and value and secret_name(name):
            found[value] = where

    for model_id, model in config.models.items():
        walk(model.options, f"models.{model_id}.options", "")
    for agent_name, agent in config.agent.items():
        walk(agent.options, f"agent.{agent_name}.options", "")
    return found


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
    if admin.get("audit") and "audit" not in locked:  # an audit trail a user's file could switch off is none
        locked.append("audit")
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
    kept_out = _not_theirs(layers, chosen[0] if chosen is not None else None)
    from_env = _from_env(env)
    if from_env:
        layers.append(("environment", from_env))
    if overrides:
        layers.append(("flags", {k: v for k, v in overrides.items() if v is not None}))
    merged = dict(admin)
    ignored: list[tuple[str, str]] = []
    origins: dict[str, str] = {}
    config_origins.record(origins, admin, f"admin file {admin_path}")
    for where, data in layers:
        if locked:
            data, removed = system_config.strip_locked(data, locked, admin)
            ignored.extend((key, where) for key in removed)
        merged = deep_merge(merged, data)
        sources.append(where)
        config_origins.record(origins, data, config_origins.layer_name(where, None, global_file))
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {_describe(exc)}") from None
    config._sources = sources
    config._origins = origins
    config._watched = [global_file, *looked, admin_path, trust.store_path()]
    config._untrusted = [_pending(p, raw, admin, layers[:1], locked) for p, raw in pending]
    config._reload = lambda: load_config(notebook_dir, overrides, env, global_dir, system_file)
    if admin_path.is_file():
        config._admin, config._admin_file, config._locked = admin, str(admin_path), tuple(locked)
        config._require_contained = require_contained
    if ignored:
        config._ignored = set(ignored)
        config._notices.append(system_config.notice(str(admin_path), ignored))
    config._notices.extend(kept_out)
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


NOT_FROM_PROJECTS = ("store", "audit")
"""Where sessions and the audit trail are written is not a cloned project's choice: a file
there could send transcripts to a shared folder, or audit lines (arguments the model wrote)
into a folder a shell or an IDE reads from."""


def _not_theirs(layers: list[tuple[str, dict[str, Any]]], project_file: Path | None) -> list[str]:
    """Take ``store`` and ``audit`` out of project files and ``audit`` out of the user's file
    (the admin's setting); one notice per file that set them."""
    notices = []
    for where, data in layers:
        keys = NOT_FROM_PROJECTS if project_file is not None and where == str(project_file) else ("audit",)
        dropped = [k for k in keys if data.pop(k, None) is not None]
        if dropped:
            notices.append(
                f"Ignored {', '.join(dropped)} in {where}: where sessions and the audit trail go is set "
                "by your own config file or JUPYTER_AGENT_STORE (store) and the administrator's file (audit)."
            )
    return notices


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
