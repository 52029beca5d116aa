"""A local model server that is not running: say so at once instead of retrying for 37 s.

A refused connection to a loopback address will not fix itself in the seconds our retries
wait; the user has to start the server. Remote servers keep the normal retries (they may
be restarting or behind a load balancer).
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

from jupyter_agent.core.provider_errors import ApiError

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]")
_DEFAULT_BASES = {"ollama": ("OLLAMA_API_BASE", "http://localhost:11434")}
_START_HINTS = {"ollama": "ollama serve"}


def _provider(model: str) -> str:
    head = model.split("/", 1)[0].lower() if "/" in model else ""
    return "ollama" if head in ("ollama", "ollama_chat") else head


def server_url(model: str, api_base: str | None) -> str | None:
    """The URL the request goes to, when we can tell (an api_base, or a provider default)."""
    if api_base:
        return api_base
    default = _DEFAULT_BASES.get(_provider(model))
    if default is None:
        return None
    env, fallback = default
    return os.environ.get(env) or fallback


def is_local(url: str) -> bool:
    host = (urlparse(url).hostname or "").lower()
    return host in LOOPBACK_HOSTS or host.startswith("127.")


def refused(exc: BaseException) -> bool:
    """True when some exception in the chain is a refused TCP connection."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        text = str(current).lower()
        if "connection refused" in text or "connect call failed" in text:
            return True
        current = current.__cause__ or current.__context__
    return False


def unreachable(exc: BaseException, model: str, api_base: str | None) -> ApiError | None:
    """A final (not retried) error for a refused local server; None otherwise."""
    url = server_url(model, api_base)
    if url is None or not is_local(url) or not refused(exc):
        return None
    hint = _START_HINTS.get(_provider(model))
    suffix = f" (`{hint}`)" if hint else ""
    return ApiError(f"Could not reach {url} — is the server running?{suffix}", retryable=False)
