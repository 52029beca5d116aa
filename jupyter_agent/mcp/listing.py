"""``%agent mcp`` and ``jupyter-agent mcp list``: each server, its state and its tools.

Listing connects the servers that have not started yet (the user asked to see their
tools); ``restart`` stops and starts them again after a failure or a config change.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

NONE = (
    'No MCP servers are configured. Add them under "mcp" in jupyter-agent.json, e.g.\n'
    '  "mcp": {"docs": {"type": "local", "command": ["uvx", "my-mcp-server"]}}\n'
    "(see docs/configuration.md)."
)


def describe(runtime: Any) -> str:
    """The servers of ``runtime`` after starting them; one block per server."""
    manager = runtime.services.mcp
    if not runtime.config.mcp or manager is None:
        return NONE
    # `jupyter-agent --help` imports this module: the server manager and tool wrappers load when used
    from jupyter_agent.mcp.context import usage
    from jupyter_agent.mcp.tools import exposed_name

    lines: list[str] = []
    for status in manager.servers.values():
        lines.append(f"{status.name}  [{status.state}]  {status.describe()}")
        if status.error:
            lines.extend(f"    {line}" for line in status.error.splitlines())
        for tool in status.tools:
            first = (tool.description.strip().splitlines() or [""])[0]
            lines.append(f"  - {exposed_name(status.name, tool.name)}: {first[:100]}")
        for prompt in status.prompts:
            first = (prompt.description.strip().splitlines() or [""])[0]
            lines.append(f"  prompt {usage(status.name, prompt)}: {first[:100]}")
        if status.resources:
            lines.append(f"  {len(status.resources)} resources (attach one with @{status.name}:URI)")
    return "\n".join(lines)


def snapshot(runtime: Any) -> list[dict[str, Any]]:
    """Each configured server's state and tools, without starting any (the panel's list)."""
    # `jupyter-agent --help` imports this module: the server manager and tool wrappers load when used
    from jupyter_agent.mcp.context import usage
    from jupyter_agent.mcp.manager import ServerStatus
    from jupyter_agent.mcp.tools import exposed_name

    manager = runtime.services.mcp
    if manager is not None:
        servers = list(manager.servers.values())
    else:
        servers = [
            ServerStatus(n, c, state="not started" if c.enabled else "disabled")
            for n, c in runtime.config.mcp.items()
        ]
    return [
        {
            "name": s.name,
            "state": s.state,
            "source": s.describe(),
            "tools": [exposed_name(s.name, t.name) for t in s.tools if not t.problem],
            "prompts": [
                {"name": p.name, "description": p.description, "usage": usage(s.name, p)} for p in s.prompts
            ],
            "resources": len(s.resources),
            "error": s.error,
        }
        for s in servers
    ]


async def start(runtime: Any) -> None:
    """Start the servers not started yet (to list their resources) and sync the tools."""
    # `jupyter-agent --help` imports this module: the server manager and tool wrappers load when used
    from jupyter_agent.mcp.tools import attach

    await attach(runtime)


async def restart(runtime: Any, names: list[str] | None = None) -> None:
    """Stop and start the servers again (after a failure or a fix), then resync the tools."""
    # `jupyter-agent --help` imports this module: the server manager and tool wrappers load when used
    from jupyter_agent.mcp.tools import attach, sync_tools

    await attach(runtime)
    manager = runtime.services.mcp
    assert manager is not None  # attach made it
    await manager.restart(names)
    runtime.notices.extend(manager.take_notices())
    runtime.notices.extend(sync_tools(runtime.registry, manager))


def run(runtime: Any, args: list[str]) -> str:
    """``[]`` lists; ``["restart", *names]`` restarts the named servers (all by default)."""
    # `jupyter-agent --help` imports this module: the server manager and tool wrappers load when used
    from jupyter_agent.mcp.manager import run_sync

    if not runtime.config.mcp:
        return NONE
    before = len(runtime.notices)
    if args[:1] == ["restart"]:
        unknown = [n for n in args[1:] if n not in runtime.config.mcp]
        if unknown:
            configured = ", ".join(runtime.config.mcp)
            return f"No MCP server named {', '.join(unknown)}. Configured: {configured}."
        run_sync(restart(runtime, args[1:] or None))
    else:
        run_sync(runtime.start_mcp())
    del runtime.notices[before:]  # the listing shows every failure: reported
    return describe(runtime)


def add_command(sub: Any) -> None:
    mcp = sub.add_parser("mcp", help="MCP servers: list them with their state and tools")
    actions = mcp.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="start the configured servers and list their tools")
    listing.add_argument("--notebook", help="the notebook whose jupyter-agent.json to use")


def main(args: argparse.Namespace, build_runtime: Callable[[argparse.Namespace], Any]) -> int:
    """Exit 1 when a server failed, so scripts can check a config (``build_runtime``: the CLI's)."""
    runtime = build_runtime(args)
    try:
        print(run(runtime, []))
    finally:
        manager = runtime.services.mcp
        if manager is not None:
            manager.close()
    manager = runtime.services.mcp
    return 1 if manager and any(s.state == "failed" for s in manager.servers.values()) else 0
