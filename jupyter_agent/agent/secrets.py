"""Keep API keys out of everything we store: tool outputs are scrubbed before they are saved.

A model that runs ``env`` or prints a config file would otherwise copy a key into the
session store, the saved tool outputs and the next request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

MIN_SECRET = 8
SECRET_SUFFIXES = ("_API_KEY", "_SECRET_KEY", "_ACCESS_KEY", "_TOKEN", "_SECRET")


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Values of key-like environment variables, longest first (name by value)."""
    env = os.environ if environ is None else environ
    found = {
        value: name
        for name, value in env.items()
        if name.upper().endswith(SECRET_SUFFIXES) and len(value) >= MIN_SECRET
    }
    return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def redact(text: str, secrets: Mapping[str, str] | None = None) -> str:
    for value, name in (secret_values() if secrets is None else secrets).items():
        if value in text:
            text = text.replace(value, f"[REDACTED:{name}]")
    return text
