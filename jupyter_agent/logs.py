"""Keep litellm's, httpx's and asyncio's log lines out of cells and the CLI's stderr.

litellm attaches its own stderr handler at import ("LiteLLM:WARNING: logging_worker.py…"),
and Python prints any unhandled WARNING to stderr when nothing is configured. Their
records are re-emitted under the ``jupyter_agent.lib.<name>`` loggers instead, where a
user who configures logging still finds them; ``--debug`` / ``JUPYTER_AGENT_DEBUG=1``
shows them on stderr. asyncio records are only taken when they come from those libraries,
so the user's own asyncio errors still show. Every record is redacted (``core.redaction``)
before it is re-emitted or printed: a provider's debug line can hold the request's key.
"""

from __future__ import annotations

import logging
import os
import sys

from jupyter_agent.core.redaction import redact

ROOT = "jupyter_agent"
LIBRARIES = (
    "LiteLLM",
    "LiteLLM Proxy",
    "LiteLLM Router",
    "litellm",
    "httpx",
    "httpcore",
    "openai",
    "mcp",
    "httpx2",
)
_FOREIGN_MARKERS = ("litellm", "httpx", "httpcore", "aiohttp", "openai")
_state = {"debug": False}


def debug_enabled(flag: bool = False) -> bool:
    """``--debug`` or ``JUPYTER_AGENT_DEBUG=1``: show tracebacks and library logs."""
    return flag or os.environ.get("JUPYTER_AGENT_DEBUG", "").strip().lower() in ("1", "true", "yes", "on")


class _Redact(logging.Filter):
    """Replace secrets in the message, its arguments and its traceback text."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact(record.getMessage()), None
        if record.exc_info:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


class _Forward(logging.Handler):
    """Re-emit a library's record under ``jupyter_agent.lib.<library>``."""

    def emit(self, record: logging.LogRecord) -> None:
        _Redact().filter(record)
        target = logging.getLogger(f"{ROOT}.lib.{record.name}")
        if target.isEnabledFor(record.levelno):
            target.handle(record)


class _AsyncioFromLibraries(logging.Filter):
    """Divert asyncio records about litellm/httpx objects (unclosed clients, dead tasks)."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if record.exc_info and record.exc_info[2] is not None:
            frame = record.exc_info[2]
            while frame.tb_next is not None:
                frame = frame.tb_next
            text += frame.tb_frame.f_code.co_filename
        for key in ("message", "task", "future", "client_session", "connector"):
            text += repr(getattr(record, key, ""))
        if any(marker in text.lower() for marker in _FOREIGN_MARKERS):
            _Forward().emit(record)
            return False
        return True


def _is_ours(handler: logging.Handler) -> bool:
    return isinstance(handler, _Forward) or getattr(handler, "_jupyter_agent", False)


def route_library_logs(debug: bool | None = None) -> None:
    """Idempotent: call after importing litellm (it adds its handler at import time).
    ``debug`` None (in a kernel): as set before, or ``JUPYTER_AGENT_DEBUG=1``."""
    _state["debug"] = debug if debug is not None else _state["debug"] or debug_enabled()
    ours = logging.getLogger(ROOT)
    if not any(_is_ours(h) for h in ours.handlers):
        quiet: logging.Handler = logging.NullHandler()  # no "last resort" printing to stderr
        quiet._jupyter_agent = True  # type: ignore[attr-defined]
        ours.addHandler(quiet)
    loud_now = any(isinstance(h, logging.StreamHandler) and _is_ours(h) for h in ours.handlers)
    if _state["debug"] and not loud_now:
        loud = logging.StreamHandler(sys.stderr)
        loud._jupyter_agent = True  # type: ignore[attr-defined]
        loud.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        loud.addFilter(_Redact())
        ours.addHandler(loud)
        ours.setLevel(logging.DEBUG)
    for name in LIBRARIES:
        lib = logging.getLogger(name)
        for handler in list(lib.handlers):
            if not _is_ours(handler):
                lib.removeHandler(handler)
        if not lib.handlers:
            lib.addHandler(_Forward())
        lib.propagate = False
    asyncio_logger = logging.getLogger("asyncio")
    if not any(isinstance(f, _AsyncioFromLibraries) for f in asyncio_logger.filters):
        asyncio_logger.addFilter(_AsyncioFromLibraries())
