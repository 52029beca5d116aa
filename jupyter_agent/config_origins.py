"""Where each effective setting came from, as ``git config --show-origin`` says it.

``load_config`` merges layers (defaults, the admin's file, the user's file, the project's
file, the environment, flags); this records, for every leaf key, the last layer that set
it, so ``%agent config`` and the side panel's settings can say *which* source decided
``model`` (an environment variable quietly beating the file the README told you to write
was the first thing a new user ran into). Pure dict logic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel

DEFAULT = "default"
ENV_VARS = {
    "model": "JUPYTER_AGENT_MODEL",
    "api_base": "JUPYTER_AGENT_API_BASE",
    "small_model": "JUPYTER_AGENT_SMALL_MODEL",
    "compaction.auto": "JUPYTER_AGENT_DISABLE_AUTOCOMPACT",
    "compaction.prune": "JUPYTER_AGENT_DISABLE_PRUNE",
    "output_token_max": "JUPYTER_AGENT_OUTPUT_TOKEN_MAX",
}
"""The variable that sets each key from the environment."""
MAPS = ("models", "agent", "mcp", "permission")
"""Keys whose values are maps of names: shown one entry per name, not as one blob."""
SHOWN_CHARS = 400
"""A value longer than this (a big MCP server entry) is cut in the plain listing."""


class Setting(BaseModel):
    """One effective key: its dotted name, its value as shown (secrets masked), its origin."""

    key: str
    value: str
    origin: str
    locked: bool = False


def leaves(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(dotted key, value)`` for every leaf of ``data`` (an empty map is a leaf too)."""
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            yield from leaves(value, f"{path}.")
        else:
            yield path, value


def layer_name(where: str, admin: str | None, user: Path | None) -> str:
    """``load_config``'s name for a layer, as a reader says it."""
    if where == "environment":
        return "environment"
    if where == "flags":
        return "flag"
    if where == admin:
        return f"admin file {where}"
    if user is not None and where == str(user):
        return f"user file {where}"
    return f"project file {where}"


def record(origins: dict[str, str], data: Mapping[str, Any], origin: str) -> None:
    """Every leaf of ``data`` now comes from ``origin`` (a value that replaces a map takes
    its whole branch: what was below it no longer counts)."""
    for key, _ in leaves(data):
        for older in [k for k in origins if k.startswith(f"{key}.")]:
            del origins[older]
        origins[key] = origin if origin != "environment" else f"environment (${ENV_VARS.get(key, key)})"


NOT_SETTINGS = ("options", "api_key", "sources", "locked")
"""What ``Config.redacted`` adds that no file sets: not rows of the listing."""


def settings(
    effective: Mapping[str, Any], origins: Mapping[str, str], locked: tuple[str, ...] = ()
) -> list[Setting]:
    """The effective settings, one row per leaf (maps of names one row per name: a model's
    name may hold dots), each with where it came from; keys no layer set say ``default``."""
    found: list[tuple[str, Any]] = []
    for head, value in effective.items():
        if head in NOT_SETTINGS:
            continue
        if head in MAPS and isinstance(value, Mapping) and value:
            found.extend((f"{head}.{name}", entry) for name, entry in value.items())
        elif isinstance(value, Mapping) and value:
            found.extend(leaves(value, f"{head}."))
        else:
            found.append((head, value))
    return [
        Setting(
            key=key,
            value=_shown(value),
            origin=_origin(origins, key),
            locked=any(key == k or key.startswith(f"{k}.") for k in locked),
        )
        for key, value in found
    ]


def _origin(origins: Mapping[str, str], key: str) -> str:
    if key in origins:
        return origins[key]
    below = {v for k, v in origins.items() if k.startswith(f"{key}.")}
    if below:
        return " + ".join(sorted(below))
    for parent in _parents(key):
        if parent in origins:
            return origins[parent]
    return DEFAULT


def _parents(key: str) -> Iterator[str]:
    parts = key.split(".")
    for n in range(len(parts) - 1, 0, -1):
        yield ".".join(parts[:n])


def _shown(value: Any) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def plain_table(rows: list[Setting]) -> str:
    """Aligned columns for a terminal or a notebook's plain text."""
    width = max((len(r.key) for r in rows), default=0)
    out = []
    for r in rows:
        value = r.value if len(r.value) <= SHOWN_CHARS else r.value[: SHOWN_CHARS - 1] + "…"
        lock = " (locked)" if r.locked else ""
        out.append(f"{r.key:<{width}}  {value}  ← {r.origin}{lock}")
    return "\n".join(out)
