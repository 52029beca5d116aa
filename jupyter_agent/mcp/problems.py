"""How MCP failures read: one line for the user, the model or ``%agent mcp`` — never a traceback.

Also where ``{env:NAME}`` values are filled in, since each one becomes a secret to redact.
"""

from __future__ import annotations

from collections.abc import Mapping

from jupyter_agent.core.redaction import redact, register_secret
from jupyter_agent.mcp.config import McpConfigError, substitute
from jupyter_agent.mcp.transport import invalid_listing


class StartError(Exception):
    """A start failure already described in words.

    Never reaches a front end: ``start_problem`` keeps its words as the server's error, which
    ``%agent mcp`` and the notices show."""


def resolved(value: str, env: Mapping[str, str], where: str, literal: bool = False) -> str:
    """``value`` with its ``{env:NAME}`` filled in; those values (and, for headers, a literal
    token written in the file) are redacted from everything stored from now on."""
    text, used = substitute(value, env, where)
    for secret, name in used:
        register_secret(secret, name)
    token = text.split(" ", 1)[-1]  # "Bearer abc…": the part after the scheme
    if literal and not used and token.strip():
        register_secret(token, where)
    return text


def leaf(exc: BaseException) -> BaseException:
    while isinstance(getattr(exc, "exceptions", None), (list, tuple)) and exc.exceptions:  # type: ignore[attr-defined]
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    return exc


def start_problem(exc: BaseException) -> str:
    if isinstance(exc, McpConfigError):
        return f"cannot start: {exc}"
    if isinstance(exc, StartError):
        return redact(f"failed to start: {exc}")
    if type(exc).__name__ == "ValidationError" and hasattr(exc, "errors"):  # pydantic: a bad answer
        return f"failed to start: {invalid_listing(exc)}"
    if isinstance(exc, FileNotFoundError):
        return f"failed to start: command not found: {exc.filename or exc}"
    if closed(exc):  # the SDK says only "Connection closed": the process exited or hung up
        return "failed to start: it closed the connection before answering (exited?)"
    text = str(exc) or type(exc).__name__
    return redact(f"failed to start: {type(exc).__name__}: {text}")


def closed(exc: BaseException) -> bool:
    # the MCP SDK loads when a server starts, not with this module
    from mcp.shared.exceptions import MCPError
    from mcp_types import CONNECTION_CLOSED

    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED
