"""What ``@`` completes to in the side panel and in ``%agent`` cells: variables, ``cell:N``,
``file:path`` and the resources of MCP servers (``server:uri``).

The same mention forms ``mentions.py`` and ``mcp/context.py`` expand, so whatever is offered
is understood when the prompt is sent. Answers are capped: a prompt box is not a file browser.
A server that has not started yet is offered by name; its resources show once it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jupyter_agent.kernel.mentions import typed_inputs
from jupyter_agent.tools.variables import user_variables

LIMIT = 30


def _first_line(text: str, cap: int = 60) -> str:
    line = next((s for s in str(text).splitlines() if s.strip()), "")
    return line if len(line) <= cap else line[: cap - 1] + "…"


def _variables(shell: Any, prefix: str) -> list[tuple[str, str]]:
    return [
        (name, type(value).__name__)
        for name, value in sorted(user_variables(shell).items())
        if name.startswith(prefix)
    ]


def _cells(shell: Any, prefix: str) -> list[tuple[str, str]]:
    inputs = typed_inputs(shell)
    return [
        (f"cell:{n}", _first_line(inputs[n]))
        for n in range(len(inputs) - 1, 0, -1)
        if str(n).startswith(prefix) and str(inputs[n]).strip()
    ]


def _files(root: Path, prefix: str) -> list[tuple[str, str]]:
    folder, _, stem = prefix.rpartition("/")
    base = (root / folder).resolve() if folder else root
    if not base.is_dir() or (base != root and root not in base.parents):
        return []
    items: list[tuple[str, str]] = []
    for entry in sorted(base.iterdir(), key=lambda p: (not p.is_dir(), p.name.lower())):
        if entry.name.startswith(".") or not entry.name.startswith(stem):
            continue
        rel = f"{folder}/{entry.name}" if folder else entry.name
        items.append(
            (f"file:{rel}/" if entry.is_dir() else f"file:{rel}", "folder" if entry.is_dir() else "file")
        )
    return items


def _resources(servers: Mapping[str, Any], query: str) -> list[tuple[str, str]]:
    """``server:`` for each MCP server the query could name, or that server's resources."""
    name, colon, rest = query.partition(":")
    if colon and name in servers:
        listed = servers[name].resources
        return [(f"{name}:{r.uri}", r.name or r.mime or "resource") for r in listed if r.uri.startswith(rest)]
    found = []
    for server, status in servers.items():
        if server.startswith(query) and server not in ("cell", "file"):
            waiting = "" if status.state == "connected" else f" ({status.state})"
            found.append((f"{server}:", f"a resource of MCP server {server}{waiting}"))
    return found


def needs_start(query: str, servers: Mapping[str, Any], configured: Mapping[str, Any]) -> bool:
    """``@server:`` names a configured server that has not started: start it, then answer."""
    name, colon, _ = query.partition(":")
    if not colon or name not in configured:
        return False
    status = servers.get(name)
    return status is None or status.state == "not started"


def complete(
    query: str, shell: Any, root: Path, servers: Mapping[str, Any] | None = None
) -> list[tuple[str, str]]:
    """``(label, detail)`` pairs for the text after ``@``; the label replaces it. ``servers``:
    the MCP servers' states (``McpManager.servers``)."""
    if query.startswith("cell:"):
        found = _cells(shell, query[5:])
    elif query.startswith("file:"):
        found = _files(root.resolve(), query[5:])
    elif ":" in query:
        found = _resources(servers or {}, query)
    else:
        found = _variables(shell, query)
        if not query or "cell:".startswith(query):
            found.append(("cell:", "a cell by execution count"))
        if not query or "file:".startswith(query):
            found.append(("file:", "a file in the project"))
        found += _resources(servers or {}, query)
    return found[:LIMIT]
