"""Opening one server's connection with the SDK: a stdio process, or streamable HTTP with SSE
as the fallback for older servers. ``{env:NAME}`` values are filled in here, at start."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from jupyter_agent.mcp.config import LocalServer, RemoteServer
from jupyter_agent.mcp.problems import StartError, leaf, resolved
from jupyter_agent.mcp.transport import http_transport


async def connect_local(
    name: str, cfg: LocalServer, stack: Any, env: Mapping[str, str], cwd: Path, errlog: TextIO
) -> Any:
    """The server's process with its stderr going to ``errlog``; the client lives in ``stack``."""
    # the MCP SDK takes seconds to import: loaded when a server starts
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    environment = {
        key: resolved(value, env, f"mcp.{name}.environment.{key}") for key, value in cfg.environment.items()
    }
    params = StdioServerParameters(command=cfg.command[0], args=cfg.command[1:], env=environment, cwd=cwd)
    return await stack.enter_async_context(Client(stdio_client(params, errlog=errlog), mode="auto"))


async def connect_remote(name: str, cfg: RemoteServer, stack: Any, env: Mapping[str, str]) -> Any:
    """Streamable HTTP, else SSE; a refusal (401, 404…) is named, the SDK says only "error"."""
    # the MCP SDK takes seconds to import: loaded when a server starts
    from mcp import Client

    headers = {k: resolved(v, env, f"mcp.{name}.headers.{k}", literal=True) for k, v in cfg.headers.items()}
    refused: list[str] = []
    try:
        transport = http_transport(cfg.url, headers, refused)
        return await stack.enter_async_context(Client(transport, mode="auto"))
    except Exception as exc:
        first = leaf(exc)
    try:  # older servers speak the SSE transport only
        # the SSE client is only needed for servers without streamable HTTP
        from mcp.client.sse import sse_client

        return await stack.enter_async_context(Client(sse_client(cfg.url, headers=headers), mode="auto"))
    except Exception:
        if refused:
            raise StartError(f"{refused[0]} from {cfg.url}") from None
        raise first from None
