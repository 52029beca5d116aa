"""The admin's system-wide file (``/etc/jupyter-agent/config.json``) and the keys it locks.

A shared server's admin sets the gateway, the models and a permission floor once for
every user. The file is read first, like any config file, and its ``locked`` list names
keys that the user's and the project's files, the environment and flags may not change:
those are taken out of each later layer before merging, and the user is told once which
were ignored and which file locked them. Pure dict logic; ``config.py`` reads the files.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

SYSTEM_FILE = Path("/etc/jupyter-agent/config.json")
SYSTEM_FILE_VAR = "JUPYTER_AGENT_SYSTEM_CONFIG"
LATER_KEYS = frozenset({"sandbox", "protected"})
"""Keys an admin may lock by name before this version knows them (the sandbox settings)."""

_COVERS: dict[str, tuple[str, ...]] = {
    # every other place that picks a model for a call
    "model": ("small_model", "compaction.model", "completion.model", "agent.*.model"),
    # litellm call options that would send the calls somewhere else
    "api_base": (
        "models.*.options.api_base",
        "models.*.options.base_url",
        "agent.*.options.api_base",
        "agent.*.options.base_url",
    ),
    "permission": ("agent.*.permission", "kernels.*.permission"),
}
"""What else a locked key holds fixed: a lock that an agent-level or option key could undo
is no lock."""


def system_file(env: Mapping[str, str] | None = None) -> Path:
    """Where the admin's file is: ``$JUPYTER_AGENT_SYSTEM_CONFIG``, else ``/etc/jupyter-agent``."""
    env = os.environ if env is None else env
    named = env.get(SYSTEM_FILE_VAR, "").strip()
    return Path(named).expanduser() if named else SYSTEM_FILE


def named_by_env(env: Mapping[str, str]) -> bool:
    return bool(env.get(SYSTEM_FILE_VAR, "").strip())


def check_locked(value: Any, known: Collection[str]) -> tuple[str, ...]:
    """The ``locked`` list as dotted keys; raises ValueError naming a key that does not exist
    (a typo would otherwise lock nothing, silently)."""
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError('locked: must be a list of key names, e.g. ["model", "permission.bash"]')
    keys = tuple(dict.fromkeys(v.strip() for v in value))
    names = set(known) | LATER_KEYS
    for key in keys:
        head = key.split(".", 1)[0]
        if head not in names:
            close = difflib.get_close_matches(head, sorted(names), n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"locked: {key!r} is not a setting{hint}")
    return keys


def expand(locked: Collection[str]) -> list[str]:
    """The locked keys with what each one also holds fixed (``permission.bash`` also locks
    ``agent.*.permission.bash``)."""
    out: list[str] = []
    for key in locked:
        out.append(key)
        out.extend(_COVERS.get(key, ()))
        head, _, rest = key.partition(".")
        if rest and head in _COVERS:
            out.extend(f"{cover}.{rest}" for cover in _COVERS[head])
    return list(dict.fromkeys(out))


def strip_locked(
    layer: Mapping[str, Any], locked: Collection[str], admin: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """``layer`` without the locked keys, and the keys taken out (as dotted paths). A value
    equal to the admin's own is taken out quietly: it changes nothing."""
    data = dict(layer)
    removed: list[str] = []
    for path in expand(locked):
        data = _remove(data, path, "", removed, admin)
    return data, removed


def _remove(
    data: dict[str, Any], path: str, where: str, removed: list[str], admin: Mapping[str, Any]
) -> dict[str, Any]:
    """A copy of ``data`` without ``path``; a key may hold dots (``models.openai/gpt-4.1``),
    so each key of ``data`` is tried as the next step, and ``*`` matches any one key."""
    out = dict(data)
    for key in list(out):
        rest = _after(key, path)
        if rest is None:
            continue
        if rest == "":
            value = out.pop(key)
            if _lookup(admin, f"{where}{key}") != value:
                removed.append(f"{where}{key}")
        elif isinstance(out[key], dict):
            out[key] = _remove(out[key], rest, f"{where}{key}.", removed, admin)
            if not out[key] and data[key]:
                out.pop(key)
    return out


def _after(key: str, path: str) -> str | None:
    """What is left of ``path`` once ``key`` is taken from its front ("" for the whole path)."""
    if path == key or path == "*":
        return ""
    for head in (key, "*"):
        if path.startswith(f"{head}."):
            return path[len(head) + 1 :]
    return None


def _lookup(data: Mapping[str, Any], path: str) -> Any:
    """The value at a concrete dotted path (keys with dots tried whole first), or a marker."""
    if path in data:
        return data[path]
    for key, value in data.items():
        if path.startswith(f"{key}.") and isinstance(value, Mapping):
            return _lookup(value, path[len(key) + 1 :])
    return _MISSING


_MISSING = object()


def notice(file: str, ignored: list[tuple[str, str]]) -> str:
    """One line for everything a user's layers tried to change: ``(key, where it was set)``."""
    shown = ", ".join(f"{key} (from {where})" for key, where in ignored)
    return (
        f"Ignored settings that the administrator locked in {file}: {shown}. "
        "Ask your administrator to change them."
    )
