"""A small MCP server for the tests, written with the official SDK.

``python demo_server.py stdio``, ``python demo_server.py http PORT`` (streamable HTTP at
``/mcp``) or ``python demo_server.py sse PORT`` (the older SSE transport at ``/sse``). Tools: a text tool,
an image tool, a tool that raises, a big output, a slow call (writes its pid first, so a
test can kill the server mid-call), one that reports progress as it goes and one that shows
an environment variable; one resource (``demo://notes/today``) and one prompt (``greet``).
With ``DEMO_STARTED_FILE`` set, each start appends the process id to that file.
With ``DEMO_REQUIRE_TOKEN`` set, the HTTP server refuses requests whose
``Authorization`` is not ``Bearer <DEMO_REQUIRE_TOKEN>``.
"""

from __future__ import annotations

import asyncio
import os
import struct
import sys
import zlib
from pathlib import Path

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("demo")


def _png(width: int = 4, height: int = 4) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


@server.tool()
def echo(text: str) -> str:
    """Echo the text back, upper-cased."""
    return f"echo: {text.upper()}"


@server.tool()
def chart() -> Image:
    """A tiny red PNG."""
    return Image(data=_png(), format="png")


@server.tool()
def explode() -> str:
    """Always fails."""
    raise ToolError("database is locked")


@server.tool()
def lines(count: int) -> str:
    """``count`` numbered lines."""
    return "\n".join(f"line {i}" for i in range(1, count + 1))


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep, after writing this process's pid to $DEMO_PID_FILE."""
    pid_file = os.environ.get("DEMO_PID_FILE")
    if pid_file:
        Path(pid_file).write_text(str(os.getpid()))
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
async def crunch(steps: int, delay: float, ctx: Context) -> str:
    """Work in ``steps`` steps of ``delay`` seconds, reporting progress after each."""
    for i in range(1, steps + 1):
        await asyncio.sleep(delay)
        await ctx.report_progress(i, steps, f"crunched {i} of {steps} chunks")
    return f"crunched {steps} chunks"


@server.tool()
def whoami() -> str:
    """The process id and the DEMO_TOKEN this server was given."""
    return f"pid={os.getpid()} token={os.environ.get('DEMO_TOKEN', '')}"


@server.resource("demo://notes/today", name="today", mime_type="text/plain")
def notes() -> str:
    """Today's notes (a resource, attached with @demo:demo://notes/today)."""
    return "Ship the audit trail on Friday."


@server.prompt()
def greet(name: str) -> str:
    """Greet someone (a prompt, run as /demo:greet name=…)."""
    return f"Write a two-word greeting for {name}."


def _http(where: str, sse: bool = False) -> None:
    """``where`` is a port number or ``fd:N``, a socket the test already bound (no port race)."""
    import socket

    import uvicorn

    app = server.sse_app() if sse else server.streamable_http_app()
    token = os.environ.get("DEMO_REQUIRE_TOKEN")
    if token:
        inner = app

        async def app(scope, receive, send):  # type: ignore[no-untyped-def]
            if scope["type"] == "http":
                headers = dict(scope.get("headers") or [])
                if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                    await send({"type": "http.response.start", "status": 401, "headers": []})
                    await send({"type": "http.response.body", "body": b"unauthorized"})
                    return
            await inner(scope, receive, send)

    if where.startswith("fd:"):
        sock = socket.socket(fileno=int(where[3:]))
        uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])
    else:
        uvicorn.run(app, host="127.0.0.1", port=int(where), log_level="warning")


if __name__ == "__main__":
    started = os.environ.get("DEMO_STARTED_FILE")
    if started:  # appended: a restarted server adds a line
        with open(started, "a") as f:
            f.write(f"{os.getpid()}\n")
    if sys.argv[1:2] in (["http"], ["sse"]):
        _http(sys.argv[2], sse=sys.argv[1] == "sse")
    else:
        print("demo server starting", file=sys.stderr, flush=True)
        server.run("stdio")
