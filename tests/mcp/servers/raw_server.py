"""A hand-written stdio "MCP server" that answers what the SDK's own server would refuse to send.

``python raw_server.py``: lists a tool whose ``inputSchema`` is a string (not JSON Schema at all)
next to a fine one, which answers ``tools/call``.
"""

from __future__ import annotations

import json
import sys

TOOLS = [
    {"name": "oops", "inputSchema": "not a schema"},
    {"name": "fine", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue  # a notification
    rid, method = request["id"], request.get("method")
    if method == "initialize":
        version = request["params"]["protocolVersion"]
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "0"},
        }
        send({"jsonrpc": "2.0", "id": rid, "result": result})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        text = f"called {request['params']['name']!r}"
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})
