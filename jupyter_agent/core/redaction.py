"""Which values are secrets, and how to take them out of text before it leaves the process.

A model that runs ``env``, a prompt with ``@file:.env``, a provider error echoing the key:
each would copy a key into the store, ``tool-output/``, an export, stderr or the next
request. Every one of those paths calls :func:`redact`. Secrets are:

- the value of every variable the agent itself reads a key from (``JUPYTER_AGENT_API_KEY``
  and whatever ``api_key_env`` names, whatever that name looks like);
- the value of every environment variable whose name looks secret (a ``KEY``, ``TOKEN``,
  ``SECRET``, ``PASSWORD``… word in it, e.g. ``OPENAI_API_KEY``, ``DB_PASSWORD``);
- the password inside any variable holding a URL (``postgres://user:PASSWORD@host``);
- the entries of the ``redact`` config key (a variable's name, or a literal value).

Each is replaced by ``[REDACTED:<name>]`` so the model and the user still see which secret
was there. The environment is read on every call: a key set later in the kernel counts.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

MIN_SECRET = 8
"""Shorter values of "secret-looking" variables (``1``, ``true``) are not worth hiding."""
MIN_NAMED = 4
"""Variables and values the config names explicitly are hidden down to this length."""
SECRET_WORDS = frozenset(
    {
        "KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PWD", "PASS",
        "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "AUTH", "PRIVATE", "SIGNATURE", "COOKIE",
    }
)  # fmt: skip
NOT_SECRET_LAST = frozenset({"PATH", "FILE", "DIR", "SOCK", "SOCKET", "HOST", "PORT", "URL", "TYPE", "ID"})
"""``SSH_AUTH_SOCK``, ``KEY_FILE``, ``TOKEN_URL``: names of places, not secrets."""
NOT_SECRET = frozenset({"PWD", "OLDPWD"})
ALWAYS = ("JUPYTER_AGENT_API_KEY",)

_lock = threading.Lock()
_names: set[str] = set(ALWAYS)
_values: dict[str, str] = {}


@functools.lru_cache(maxsize=1024)
def looks_secret(name: str) -> bool:
    """``DB_PASSWORD``, ``githubToken``, ``OPENAI_API_KEY`` yes; ``PWD``, ``SSH_AUTH_SOCK`` no."""
    if name.upper() in NOT_SECRET:
        return False
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    words = [w for w in re.split(r"[^A-Za-z0-9]+", spaced.upper()) if w]
    if not words or words[-1] in NOT_SECRET_LAST:
        return False
    return any(w in SECRET_WORDS or w.endswith(("KEY", "TOKEN", "SECRET", "PASSWORD")) for w in words)


_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:([^@/\s]+)@")


def url_password(value: str) -> str | None:
    """The password of ``postgres://user:PASSWORD@host/db`` (``DATABASE_URL`` is a place by
    its name, but its password is a secret); None without one or when it is too short."""
    match = _URL_PASSWORD.match(value)
    return match.group(1) if match and len(match.group(1)) >= MIN_NAMED else None


def register(names: Iterable[str | None] = (), values: Iterable[str] = ()) -> None:
    """Add the variables the agent reads keys from (``api_key_env``) and the ``redact``
    entries: an entry that names a set variable means its value, any other is a value."""
    with _lock:
        for name in names:
            if name:
                _names.add(name)
        for entry in values:
            if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", entry) and entry in os.environ:
                _names.add(entry)
            elif len(entry) >= MIN_NAMED:
                _values[entry] = "redact"


def register_secret(value: str, name: str) -> None:
    """A value the agent itself sends (an MCP header or environment value from ``{env:NAME}``)."""
    if len(value) >= MIN_NAMED:
        with _lock:
            _values[value] = name


def secret_values(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Every secret value now, longest first, mapped to the name shown in its place."""
    env = os.environ if environ is None else environ
    with _lock:
        names = set(_names)
        found = dict(_values)
    for name, value in list(env.items()):
        if name in names and len(value) >= MIN_NAMED:
            found[value] = name
        elif len(value) >= MIN_SECRET and looks_secret(name):
            found.setdefault(value, name)
        elif (password := url_password(value)) is not None:
            found.setdefault(password, name)
    return dict(sorted(found.items(), key=lambda item: -len(item[0])))


def redact(text: str, secrets: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret value replaced by ``[REDACTED:<name>]``."""
    if not text:
        return text
    for value, name in (secret_values() if secrets is None else secrets).items():
        if value in text:
            text = text.replace(value, f"[REDACTED:{name}]")
    return text


def redact_value(value: Any, secrets: Mapping[str, str] | None = None) -> Any:
    """``redact`` every string inside nested dicts and lists (tool metadata, error details)."""
    found = secret_values() if secrets is None else secrets
    if not found:
        return value
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, dict):
        return {k: redact_value(v, found) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v, found) for v in value]
    return value


class StreamRedactor:
    """``redact`` for text that arrives in pieces (a command's output as it streams to a file).

    The last ``longest secret - 1`` characters wait for the next piece, so a secret split
    across two pieces is still caught; ``flush`` gives the rest at the end."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        self.secrets = secret_values() if secrets is None else secrets
        self.hold = max((len(value) for value in self.secrets), default=1) - 1
        self.carry = ""

    def feed(self, text: str) -> str:
        """What of ``carry + text`` can go out now, redacted; the tail waits."""
        if not self.secrets:
            return text
        buffer = redact(self.carry + text, self.secrets)
        cut = max(0, len(buffer) - self.hold)
        self.carry = buffer[cut:]
        return buffer[:cut]

    def flush(self) -> str:
        out, self.carry = self.carry, ""
        return out


def contains_secret(text: str, secrets: Mapping[str, str] | None = None) -> bool:
    return any(value in text for value in (secret_values() if secrets is None else secrets))


def secret_bytes() -> list[bytes]:
    """Every secret value now, as bytes: what to look for in a file's raw content."""
    return [value.encode("utf-8", "surrogatepass") for value in secret_values()]


def bytes_hold_secret(data: bytes, secrets: list[bytes] | None = None) -> bool:
    """``contains_secret`` for raw bytes (``secrets``: :func:`secret_bytes`, read once for many)."""
    return any(value in data for value in (secret_bytes() if secrets is None else secrets))


class RedactingWriter:
    """A text stream that redacts what is written to it (the CLI's stdout and stderr)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(redact(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding…
        return getattr(self._inner, name)
