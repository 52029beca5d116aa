"""What travels to and from a server: the HTTP transport, the tool listing and its checks.

A server's tool list is offered to the model as is, so one unusable input schema would
make the provider refuse every request: such a tool is kept out (with a reason) instead.
A listing the SDK rejects as a whole (one tool whose ``inputSchema`` is not even an object)
is read again tool by tool, so only the broken tool is left out.
"""

from __future__ import annotations

import contextlib
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

MAX_PAGES = 100
MAX_LISTED = 1000
"""Resources or prompts kept per server: the ``@`` completion shows a few of them anyway."""


@dataclass
class ToolInfo:
    name: str
    description: str
    input_schema: dict[str, Any]
    problem: str | None = None
    """Why the tool cannot be offered (its input schema is not a usable JSON Schema)."""
    read_only: bool = False
    """The server marks it ``readOnlyHint: true`` (the plan agent may run only these)."""
    destructive: bool = False
    """The server marks it ``destructiveHint: true`` (asked unless a rule names it exactly)."""


@dataclass
class ResourceInfo:
    """A resource a server lists: what ``@server:uri`` attaches."""

    uri: str
    name: str = ""
    mime: str = ""


@dataclass
class PromptInfo:
    """A prompt a server offers: ``/server:name`` (or ``/name``) runs it."""

    name: str
    description: str = ""
    arguments: list[tuple[str, bool]] = field(default_factory=list)
    """(name, required) in the server's order: positional values fill them in turn."""


async def list_extras(client: Any) -> tuple[list[ResourceInfo], list[PromptInfo]]:
    """The server's resources and prompts, when it says it has them; a listing that fails
    leaves that kind out (its tools still work)."""
    caps = getattr(client, "server_capabilities", None)
    resources: list[ResourceInfo] = []
    prompts: list[PromptInfo] = []
    if caps is None or getattr(caps, "resources", None) is not None:
        with contextlib.suppress(Exception):
            resources = await _pages(
                client.list_resources,
                "resources",
                lambda r: ResourceInfo(str(r.uri), r.name or "", getattr(r, "mime_type", None) or ""),
            )
    if caps is None or getattr(caps, "prompts", None) is not None:
        with contextlib.suppress(Exception):
            prompts = await _pages(
                client.list_prompts,
                "prompts",
                lambda p: PromptInfo(
                    p.name, p.description or "", [(a.name, bool(a.required)) for a in p.arguments or []]
                ),
            )
    return resources, prompts


async def _pages(listing: Any, field_name: str, make: Any) -> list[Any]:
    found: list[Any] = []
    cursor = None
    for _ in range(MAX_PAGES):
        page = await listing(cursor=cursor)
        found += [make(item) for item in getattr(page, field_name) or []]
        cursor = page.next_cursor
        if not cursor or len(found) >= MAX_LISTED:
            break
    return found[:MAX_LISTED]


async def list_tools(client: Any) -> list[ToolInfo]:
    """Every page of the server's tools, each schema checked against the JSON Schema meta-schema."""
    tools: list[ToolInfo] = []
    cursor = None
    for _ in range(MAX_PAGES):
        try:
            page = await client.list_tools(cursor=cursor)
        except ValidationError:  # one bad tool fails the SDK's whole listing: read it tool by tool
            infos, cursor = await _raw_page(client, cursor)
            tools += infos
        else:
            tools += [_info(t) for t in page.tools]
            cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _info(tool: Any) -> ToolInfo:
    schema = dict(tool.input_schema or {})
    info = ToolInfo(tool.name, tool.description or "", schema, schema_problem(schema))
    info.read_only, info.destructive = hints(getattr(tool, "annotations", None))
    return info


def hints(annotations: Any) -> tuple[bool, bool]:
    """(readOnlyHint, destructiveHint), each True only when the server says so explicitly."""

    def flag(snake: str, camel: str) -> bool:
        value = getattr(annotations, snake, None)
        return (getattr(annotations, camel, None) if value is None else value) is True

    return flag("read_only_hint", "readOnlyHint"), flag("destructive_hint", "destructiveHint")


async def _raw_page(client: Any, cursor: str | None) -> tuple[list[ToolInfo], str | None]:
    # the SDK's types load with the SDK, when a server lists its tools
    import mcp_types as types

    # the SDK checks the whole result against the schema even for a custom result type: the
    # dispatcher below it hands back the JSON as it came
    dispatcher = client.session._dispatcher
    page = await dispatcher.send_raw_request("tools/list", {"cursor": cursor} if cursor else None, {})
    listed = page.get("tools") if isinstance(page, dict) else None
    out: list[ToolInfo] = []
    for n, raw in enumerate(listed if isinstance(listed, list) else []):
        name = str(raw.get("name") or f"tool #{n + 1}") if isinstance(raw, dict) else f"tool #{n + 1}"
        try:
            tool = types.Tool.model_validate(raw)
        except ValidationError as exc:
            out.append(ToolInfo(name, "", {}, _invalid_tool(exc)))
            continue
        out.append(_info(tool))
        if isinstance(known := getattr(client.session, "_tool_output_schemas", None), dict):
            # else the SDK lists again (and fails again) to check the first call's result
            known[tool.name] = getattr(tool, "output_schema", None)
    cursor = page.get("nextCursor") if isinstance(page, dict) else None
    return out, cursor if isinstance(cursor, str) and cursor else None


def _invalid_tool(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "the tool"
    return f"its listing is not valid MCP ({where}: {first['msg']})"


def schema_problem(schema: dict[str, Any]) -> str | None:
    """None when ``schema`` is a JSON Schema for an object; else one line saying why not."""
    # jsonschema is slow to import: loaded when a server lists its tools
    import jsonschema

    if schema.get("type", "object") != "object":
        return f"its input schema has type {schema.get('type')!r}, not 'object'"
    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "the top level"
        return f"its input schema is not valid JSON Schema (at {where}: {exc.message[:200]})"
    return None


def invalid_listing(exc: Any) -> str:
    """A pydantic ValidationError of the server's answer, in one line."""
    errors = exc.errors()[:3]
    parts = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors]
    more = f" (and {len(exc.errors()) - 3} more)" if len(exc.errors()) > 3 else ""
    return f"its answer is not valid MCP: {'; '.join(parts)}{more}"


def load_sdk() -> None:
    """Import the SDK's client modules (the first time takes seconds)."""
    # the MCP SDK takes seconds to import: loaded when the first server starts
    import mcp
    import mcp.client.sse
    import mcp.client.stdio
    import mcp.client.streamable_http  # noqa: F401


def warm_up() -> None:
    with contextlib.suppress(Exception):
        import jsonschema  # noqa: F401


def http_transport(url: str, headers: dict[str, str], refused: list[str]) -> Any:
    """Streamable HTTP whose refusals (401, 404…) are noted: the SDK only says "error response"."""
    # the MCP SDK and its HTTP client load when a server connects
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async def note(response: Any) -> None:
        if response.status_code >= 400:
            refused.append(f"HTTP {response.status_code} {response.reason_phrase}".rstrip())

    client = httpx2.AsyncClient(
        headers=headers, timeout=httpx2.Timeout(30.0, read=300.0), event_hooks={"response": [note]}
    )
    return _owning(streamable_http_client(url, http_client=client), client)


def _owning(transport: Any, http_client: Any) -> Any:
    """The transport, closing its HTTP client when it closes."""

    @asynccontextmanager
    async def wrapped() -> Any:
        async with http_client, transport as streams:
            yield streams

    return wrapped()
