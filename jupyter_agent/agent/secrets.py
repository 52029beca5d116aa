"""Keep API keys out of everything we store: tool outputs are scrubbed before they are saved.

A model that runs ``env`` or prints a config file would otherwise copy a key into the
session store, the saved tool outputs and the next request. Tool metadata (a ``python``
error's message) and provider error texts (a proxy echoing the key) are scrubbed too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

MIN_SECRET = 8
SECRET_SUFFIXES = ("_API_KEY", "_SECRET_KEY", "_ACCESS_KEY", "_TOKEN", "_SECRET")
_used: dict[str, str] = {}
"""Values the agent itself sends (MCP headers and environment from ``{env:NAME}``)."""


def register_secret(value: str, name: str) -> None:
    if len(value) >= MIN_SECRET:
        _used[value] = name


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Values of key-like environment variables, longest first (name by value)."""
    env = os.environ if environ is None else environ
    found = {
        value: name
        for name, value in env.items()
        if name.upper().endswith(SECRET_SUFFIXES) and len(value) >= MIN_SECRET
    }
    found.update(_used)
    return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def redact(text: str, secrets: Mapping[str, str] | None = None) -> str:
    for value, name in (secret_values() if secrets is None else secrets).items():
        if value in text:
            text = text.replace(value, f"[REDACTED:{name}]")
    return text


def redact_value(value: Any, secrets: Mapping[str, str] | None = None) -> Any:
    """``redact`` every string inside nested dicts and lists (tool metadata, error details)."""
    found = secret_values() if secrets is None else secrets
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, dict):
        return {k: redact_value(v, found) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, found) for v in value]
    return value
