"""A filesystem MCP server that marks its tools as MCP allows (stdio; issue 26.4 tests).

``fs_read_file`` is ``readOnlyHint: true``; ``fs_write_file`` ``destructiveHint: true``;
``fs_append_note`` says nothing either way.
"""

from __future__ import annotations

from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("fs")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def read_file(path: str) -> str:
    """The text of a file."""
    return Path(path).read_text()


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True))
def write_file(path: str, content: str) -> str:
    """Replace a file's text."""
    Path(path).write_text(content)
    return f"wrote {path}"


@server.tool()
def append_note(path: str, text: str) -> str:
    """Append a line to a file."""
    with Path(path).open("a") as fh:
        fh.write(text + "\n")
    return "noted"


if __name__ == "__main__":
    server.run("stdio")
