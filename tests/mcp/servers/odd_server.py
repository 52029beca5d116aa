"""A misbehaving MCP server for the break-it tests (low-level SDK ``Server`` over stdio).

``python odd_server.py MODE``:
``hang``     never answers (not even ``initialize``);
``garbage``  prints non-JSON lines on stdout before and during the session;
``huge``     a tool returning ~3 MB of text on one line;
``schema``   a tool whose input schema is not valid JSON Schema, next to a fine one;
``names``    tool names with odd characters, collisions with each other and with built-ins.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "names"
if MODE == "hang":  # before the SDK's imports: the stderr line is there at once
    print(f"hanging on purpose (pid {os.getpid()})", file=sys.stderr, flush=True)
    time.sleep(3600)

import anyio  # noqa: E402 (after the hang mode)
import mcp_types as types  # noqa: E402
from mcp.server.lowlevel import Server  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402

OBJ: dict[str, Any] = {"type": "object", "properties": {}}
TOOLS: dict[str, list[types.Tool]] = {
    "garbage": [
        types.Tool(name="noisy", description="Prints junk on stdout, then answers.", input_schema=OBJ)
    ],
    "huge": [types.Tool(name="dump", description="About 3 MB of text.", input_schema=OBJ)],
    "schema": [
        types.Tool(
            name="bad_props",
            description="properties is a list.",
            input_schema={"type": "object", "properties": ["q"]},
        ),
        types.Tool(
            name="fine",
            description="A usable schema.",
            input_schema={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        ),
    ],
    "names": [
        types.Tool(name="get weather!", description="Spaces and punctuation.", input_schema=OBJ),
        types.Tool(name="get/weather?", description="The same name once cleaned.", input_schema=OBJ),
        types.Tool(name="édit/ünïcode", description="Non-ASCII.", input_schema=OBJ),
        types.Tool(name="edit", description="notebook_edit is a built-in tool.", input_schema=OBJ),
        types.Tool(name="x" * 200, description="A very long name.", input_schema=OBJ),
        types.Tool(name="x" * 200 + "y", description="The same name once cut.", input_schema=OBJ),
    ],
}


async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS.get(MODE, []))


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name == "noisy":
        print("this is not JSON-RPC", flush=True)
        text = "quiet now"
    elif params.name == "dump":
        text = "0123456789abcdef" * 200_000
    else:
        text = f"called {params.name!r} with {params.arguments!r}"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


server = Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    if MODE == "garbage":
        print("Welcome to odd-server v0.1!", flush=True)
        print("{not json either", flush=True)
    anyio.run(main)
