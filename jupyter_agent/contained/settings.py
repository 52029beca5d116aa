"""The sandbox settings a contained kernel starts with, read as the agent reads its configuration.

Only trusted files count (``config.load_config``): a project file a cell wrote cannot
widen the next kernel's sandbox. Reading the configuration imports pydantic and the
models (~150 ms, as much as the whole budget for starting a kernel in a sandbox), so the
result is kept in the user data folder (commands cannot see it, a contained kernel cannot
write it) together with the stamp of every file it came from and looked for, and reused
while none of them and none of the ``JUPYTER_AGENT_*`` variables changed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel.config_watch import ConfigWatch
from jupyter_agent.tools import bwrap
from jupyter_agent.tools.protected import user_data_dir

CACHE_DIR = "contained"
FORMAT = 3
"""Changes when what is kept changes (an older file is read again)."""


class SettingsProblem(JupyterAgentError):
    """The configuration cannot be read: the kernel does not start (it would not know its
    sandbox)."""


@dataclass(frozen=True)
class KernelSettings:
    """What of the configuration decides a contained kernel's sandbox."""

    network: bool = True
    writable: tuple[str, ...] = ()
    """``sandbox.writable`` as written (relative to the project root, ``~``, or absolute)."""
    deny_read: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()
    endpoints: tuple[str, ...] = ()
    """``host:port`` of the model endpoints the configuration names (``contained/egress.py``)."""
    store: str | None = None
    """``store``: one folder for every notebook folder's sessions (``storage/location.py``)."""
    audit: str | None = None
    """The admin's audit trail: a folder, or ``syslog`` (``storage/audit_log.py``)."""


def read(cwd: Path, env: Mapping[str, str]) -> KernelSettings:
    """The settings for a kernel started in ``cwd``: from the cache while it holds, else read."""
    cache = _cache_file(cwd, env)
    found = _cached(cache, env)
    if found is not None:
        return found
    # pydantic and the configuration model load only when the cache does not hold
    from jupyter_agent.config import ConfigError, load_config

    watch = ConfigWatch.now([], env)
    try:
        config = load_config(cwd, env=env)
    except ConfigError as exc:
        raise SettingsProblem(str(exc)) from None
    watch.add(config.watched)
    box = config.sandbox
    settings = KernelSettings(
        box.network,
        tuple(box.writable),
        tuple(box.deny_read),
        tuple(config.protected),
        tuple(endpoints(config.model_dump())),
        config.store,
        config.audit,
    )
    _store(cache, watch, settings)
    return settings


PROVIDER_HOSTS = {
    "openai": "api.openai.com",
    "anthropic": "api.anthropic.com",
    "gemini": "generativelanguage.googleapis.com",
    "mistral": "api.mistral.ai",
    "groq": "api.groq.com",
    "deepseek": "api.deepseek.com",
    "openrouter": "openrouter.ai",
    "xai": "api.x.ai",
    "together_ai": "api.together.xyz",
    "fireworks_ai": "api.fireworks.ai",
    "perplexity": "api.perplexity.ai",
    "cohere": "api.cohere.ai",
}
"""Where litellm sends a model string's provider when no ``api_base`` says otherwise."""


def endpoints(data: Mapping[str, Any]) -> list[str]:
    """``host:port`` of every endpoint the configuration (as a dict) sends prompts to."""
    urls: list[str] = [str(data["api_base"])] if data.get("api_base") else []
    models = [data.get("model"), data.get("small_model")]
    models += [(data.get(k) or {}).get("model") for k in ("compaction", "completion")]
    for where in ("models", "agent"):
        for entry in (data.get(where) or {}).values():
            options = (entry or {}).get("options") or {}
            urls += [str(options[k]) for k in ("api_base", "base_url") if options.get(k)]
            models.append((entry or {}).get("model"))
    found = [_host_port(u) for u in urls]
    if not data.get("api_base"):
        providers = [str(m).split("/", 1)[0] for m in models if m]
        found += [f"{PROVIDER_HOSTS[p]}:443" for p in providers if p in PROVIDER_HOSTS]
    return list(dict.fromkeys(f for f in found if f))


def _host_port(url: str) -> str | None:
    parts = urlsplit(url)
    if not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    host = parts.hostname
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def base_mounts(found: str, network: bool, env: Mapping[str, str]) -> tuple[str | None, tuple[str, ...]]:
    """(why ``found`` cannot start a sandbox, the base mounts that work with it): tried once
    (a process each time costs a kernel start ~15 ms) and remembered while the binary is the
    same; ``forget_mounts`` after a sandbox failed to start."""
    cache = _probe_file(env)
    try:
        st = os.stat(found)
        key = f"{found}|{network}|{st.st_mtime_ns}|{st.st_size}|{st.st_ino}"
        known = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        key, known = "", {}
    if key and isinstance(known, dict) and isinstance(known.get(key), list):
        return None, tuple(map(str, known[key]))
    problem, base = bwrap.tried(found, network)
    if problem is None and key:
        _write(cache, {key: list(base)})
    return problem, base


def forget_mounts(env: Mapping[str, str]) -> None:
    with contextlib.suppress(OSError):
        _probe_file(env).unlink()


def _probe_file(env: Mapping[str, str]) -> Path:
    return user_data_dir(env) / CACHE_DIR / "bwrap.json"


def _cache_file(cwd: Path, env: Mapping[str, str]) -> Path:
    key = hashlib.sha256(str(cwd).encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return user_data_dir(env) / CACHE_DIR / f"{key}.json"


def _cached(cache: Path, env: Mapping[str, str]) -> KernelSettings | None:
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            return None
        files = {Path(p): (tuple(s) if s else None) for p, s in data["files"].items()}
        watch = ConfigWatch(files, data["env"])
        if watch.changes(env):
            return None
        raw = data["settings"]
        return KernelSettings(
            bool(raw["network"]),
            tuple(map(str, raw["writable"])),
            tuple(map(str, raw["deny_read"])),
            tuple(map(str, raw["protected"])),
            tuple(map(str, raw["endpoints"])),
            str(raw["store"]) if raw["store"] is not None else None,
            str(raw["audit"]) if raw["audit"] is not None else None,
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _store(cache: Path, watch: ConfigWatch, settings: KernelSettings) -> None:
    """Keep the settings for the next start (a folder that cannot be written: not kept)."""
    data = {
        "format": FORMAT,
        "files": {str(p): s for p, s in watch.files.items()},
        "env": watch.env,
        "settings": asdict(settings),
    }
    _write(cache, data)


def _write(path: Path, data: object) -> None:
    """Replace ``path`` whole (a folder that cannot be written: nothing is kept)."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
