"""MCP resources and prompts in a prompt: ``@server:uri`` attaches a resource, a prompt that
starts with ``/server:name`` (or ``/name``) runs one of a server's prompts.

Only what the user typed is read for them (never a mentioned file's text or a tool's
output), so nothing the model or a file says can make a server read something. A resource
is attached like a mentioned file: cut at ``MAX_RESOURCE_CHARS``, redacted, in a fence its
text cannot close. Both go through the permission rules as the server's tools do, named
``<server>_resources`` (patterns: the URI) and ``<server>_prompts`` (the prompt's name):
``"docs_*": "deny"`` keeps the whole server out, the admin's rules are a floor. The user
typing the mention is the approval, so only ``deny`` refuses (``"*"`` does not count).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.fence import fence
from jupyter_agent.core.redaction import redact
from jupyter_agent.mcp.manager import McpCallError, McpManager
from jupyter_agent.mcp.transport import PromptInfo

MAX_RESOURCE_CHARS = 20_000
"""Characters of one resource put into the prompt (as for ``@file:``)."""
RESERVED = frozenset({"cell", "file"})
"""``@cell:3`` and ``@file:x`` are the notebook's own mentions, whatever servers exist."""
_MENTION = re.compile(
    r"(?<![\w.@/:+-])@(?P<server>[A-Za-z0-9_-]{1,40}):"
    r"(?:\"(?P<dq>[^\"]+)\"|'(?P<sq>[^']+)'|(?P<uri>\S+))"
)
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.DOTALL)
_SLASH = re.compile(
    r"\A\s*/(?:(?P<server>[A-Za-z0-9_-]{1,40}):)?(?P<name>[A-Za-z0-9_.-]+)(?:\s+(?P<rest>.*))?\Z", re.S
)
_TRAILING = ".,;:)]}!?\"'"

_NOT_RUNNING = {
    "failed": "failed (see %agent mcp)",
    "disabled": "is disabled",
    "not started": "has not started",
}
Rule = Callable[[str, str], str]
"""``rule(permission, value)`` → "allow" | "ask" | "deny" (the runtime's rules, its floor included)."""


class McpInputError(UsageFailure):
    """A resource or prompt the user named cannot be used: unknown, refused, failed."""


def resource_mentions(prompt: str, servers: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(as written, server, uri)`` for each ``@server:uri`` outside code spans whose server is
    configured (``@df:`` stays a variable mention when no server is called ``df``)."""
    masked = _CODE.sub(lambda m: " " * len(m.group(0)), prompt)
    found = []
    for match in _MENTION.finditer(masked):
        server = match.group("server")
        if server in RESERVED or server not in servers:
            continue
        quoted = match.group("dq") or match.group("sq")
        uri = quoted or (match.group("uri") or "").rstrip(_TRAILING)
        if uri:
            found.append((prompt[match.start() : match.end()] if quoted else f"@{server}:{uri}", server, uri))
    return found


def slash_prompt(prompt: str, servers: Mapping[str, list[PromptInfo]]) -> tuple[str, PromptInfo, str] | None:
    """``(server, prompt, argument text)`` when ``prompt`` starts with one of the connected
    servers' prompts: ``/server:name`` always, ``/name`` when one server alone has it. A
    ``/server:name`` naming no prompt of a configured server raises (a typo, said at once)."""
    match = _SLASH.match(prompt)
    if match is None:
        return None
    server, name, rest = match.group("server"), match.group("name"), (match.group("rest") or "").strip()
    if server is not None:
        if server not in servers:
            return None
        info = next((p for p in servers[server] if p.name == name), None)
        if info is None:
            offered = ", ".join(f"/{server}:{p.name}" for p in servers[server]) or "none"
            raise McpInputError(f"MCP server '{server}' has no prompt '{name}'; its prompts: {offered}.")
        return server, info, rest
    owners = [(s, p) for s, infos in servers.items() for p in infos if p.name == name]
    if len(owners) != 1:
        return None
    return owners[0][0], owners[0][1], rest


def usage(server: str, info: PromptInfo) -> str:
    args = " ".join(f"{n}=…" if required else f"[{n}=…]" for n, required in info.arguments)
    return f"/{server}:{info.name}" + (f" {args}" if args else "")


def prompt_arguments(server: str, info: PromptInfo, text: str) -> dict[str, str]:
    """``key=value`` words fill the argument named ``key``; other words fill the arguments in
    order, the last one taking the rest of the line."""
    try:
        words = shlex.split(text)
    except ValueError:  # an apostrophe in free text
        words = text.split()
    names = [n for n, _ in info.arguments]
    values: dict[str, str] = {}
    loose: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and key in names:
            values[key] = value
        else:
            loose.append(word)
    free = [n for n in names if n not in values]
    if loose and not free:
        what = "takes no arguments" if not names else "got more words than it has arguments"
        raise McpInputError(
            f"/{server}:{info.name} {what}: {' '.join(loose)!r} (usage: {usage(server, info)})."
        )
    for i, name in enumerate(free[: len(loose)]):
        values[name] = " ".join(loose[i:]) if i == len(free) - 1 else loose[i]
    missing = [n for n, required in info.arguments if required and not values.get(n)]
    if missing:
        raise McpInputError(
            f"/{server}:{info.name} needs {', '.join(missing)} (usage: {usage(server, info)})."
        )
    return values


def _check(rule: Rule, permission: str, value: str, what: str) -> None:
    if rule(permission, value) == "deny":
        raise McpInputError(
            f"{what} is refused by the permission rules ({permission}: deny); the administrator's "
            f'settings or "permission" in jupyter-agent.json decide this.'
        )


def _text_of(contents: list[Any], limit: int = MAX_RESOURCE_CHARS) -> str:
    parts: list[str] = []
    for item in contents:
        text = getattr(item, "text", None)
        mime = getattr(item, "mime_type", None) or "application/octet-stream"
        if isinstance(text, str):
            parts.append(text)
        else:
            size = len(getattr(item, "blob", "") or "") * 3 // 4
            parts.append(
                f"(binary resource {getattr(item, 'uri', '')}, {mime}, about {size} bytes: not attached)"
            )
    text = "\n".join(parts)
    if len(text) > limit:
        text = text[:limit] + f"\n… (the resource has {len(text)} characters; the rest is left out)"
    return redact(text)


async def read_resource(manager: McpManager, server: str, uri: str) -> str:
    """The resource's text for a mention block (cut and redacted); a failure reads as one line."""
    try:
        result = await manager.request(
            server,
            f"read of {uri}",
            lambda c: c.read_resource(uri),
            f"MCP server '{server}' could not read {uri}",
        )
    except McpCallError as exc:
        return f"(not read: {exc})"
    return _text_of(list(result.contents or []))


def _render(messages: list[Any]) -> str:
    """A prompt's messages as the text of one user prompt: user text as is, an assistant turn
    marked, embedded resources fenced like mentions, media named."""
    out: list[str] = []
    for message in messages:
        content = message.content
        kind = getattr(content, "type", "")
        if kind == "text":
            body = content.text
        elif kind == "resource":
            res = content.resource
            body = fence("mention", _text_of([res]), ref=str(res.uri))
        elif kind == "resource_link":
            body = f"[resource: {content.uri}]"
        else:
            body = f"[{kind or 'content'} omitted]"
        out.append(body if message.role == "user" else f"[{message.role}]\n{body}")
    return "\n\n".join(out)


async def expand(manager: McpManager | None, typed: str, text: str, rule: Rule) -> str:
    """``text`` (the prompt as the front end built it from ``typed``) with the MCP prompt run
    and the MCP resources attached; unchanged when ``typed`` names neither."""
    if manager is None:
        return text
    connected = {n: s for n, s in manager.servers.items() if s.state == "connected"}
    slash = slash_prompt(typed, {n: s.prompts for n, s in connected.items()})
    if slash is not None:
        server, info, rest = slash
        _check(rule, f"{server}_prompts", info.name, f"The prompt /{server}:{info.name}")
        arguments = prompt_arguments(server, info, rest)
        try:
            result = await manager.request(
                server,
                f"request for the prompt '{info.name}'",
                lambda c: c.get_prompt(info.name, arguments),
                f"MCP server '{server}' could not give the prompt '{info.name}'",
            )
        except McpCallError as exc:
            raise McpInputError(str(exc)) from None
        text = _render(list(result.messages or [])) + (text[len(typed) :] if text.startswith(typed) else "")
    blocks = []
    for written, server, uri in resource_mentions(typed, manager.servers):
        _check(rule, f"{server}_resources", uri, f"The resource {written}")
        status = manager.servers[server]
        body = await read_resource(manager, server, uri) if status.state == "connected" else None
        body = body or f"(not read: MCP server '{server}' {_NOT_RUNNING.get(status.state, status.state)})"
        blocks.append(fence("mention", body, ref=written))
    return text + "".join(f"\n\n{b}" for b in blocks)
