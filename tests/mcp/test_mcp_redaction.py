"""``{env:NAME}`` values in MCP headers and environments never show, wherever they could land.

User sees: a token given to an MCP server through ``{env:NAME}`` is replaced by
``[REDACTED:NAME]`` in tool results, in what the model is sent, in the cell, the side
panel, ``%agent mcp`` / ``%agent config``, and nothing under the notebook's folder (the
session store, spilled outputs) holds it, even when a server prints it in its stderr.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_support import stdio_server
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.kernel

STDIO_VALUE = "stdio-value-7f3a9c1e5b"
HTTP_VALUE = "http-value-2d8e4b6a0c"
LEAK = "import os, sys; print('token is', os.environ['DEMO_TOKEN'], file=sys.stderr); sys.exit(1)"


def _everything_under(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != "jupyter-agent.json"
    }


def test_env_references_are_redacted_everywhere(
    start_kernel: Any, scripted_server: Any, http_server: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    from jupyter_agent.ui.comm_target import TARGET

    # names no suffix rule would redact: only the {env:...} reference makes them secret
    monkeypatch.setenv("ZZ_STDIO_VALUE", STDIO_VALUE)
    monkeypatch.setenv("ZZ_HTTP_VALUE", HTTP_VALUE)
    web = http_server(DEMO_REQUIRE_TOKEN=HTTP_VALUE, DEMO_TOKEN=HTTP_VALUE)
    config = {
        "mcp": {
            "demo": stdio_server(DEMO_TOKEN="{env:ZZ_STDIO_VALUE}"),
            "web": {
                "type": "remote",
                "url": web.url,
                "headers": {"Authorization": "Bearer {env:ZZ_HTTP_VALUE}"},
            },
            "leaky": {
                "type": "local",
                "command": [sys.executable, "-c", LEAK],
                "environment": {"DEMO_TOKEN": "{env:ZZ_STDIO_VALUE}"},
            },
        },
        "permission": {"demo_*": "allow", "web_*": "allow"},
    }
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_whoami", "{}"), ToolCall("web_whoami", "{}")]),
        Reply(text="done"),
    )
    kernel = start_kernel(frontend=True)
    comm = kernel.comm_open(TARGET, {"type": "hello", "notebook_path": "analysis.ipynb"})
    result = kernel.execute("%agent --wait who are you")
    assert result.status == "ok", result.error
    listing = kernel.execute("%agent mcp").stdout
    shown = kernel.execute("%agent config").shown
    kernel.comm_data(comm, {"type": "mcp", "action": "list"})
    kernel.drain(2.0)

    # the values did flow: the tools saw them, the failing server printed one
    sent = json.dumps(scripted_server.requests[1]["body"]["messages"])
    assert "token=[REDACTED:ZZ_STDIO_VALUE]" in sent and "token=[REDACTED:ZZ_HTTP_VALUE]" in sent
    assert "leaky  [failed]" in listing and "token is [REDACTED:ZZ_STDIO_VALUE]" in listing
    assert "{env:ZZ_HTTP_VALUE}" in shown

    places = {
        "model requests": json.dumps([r["body"] for r in scripted_server.requests]),
        "kernel messages": json.dumps([m["content"] for m in kernel.iopub], default=str),
        "%agent mcp": listing,
        "%agent config": shown,
    }
    kernel.shutdown()  # the store is flushed and closed
    files = _everything_under(tmp_path)
    assert any(".jupyter-agent" in name for name in files)
    for value in (STDIO_VALUE, HTTP_VALUE):
        assert [where for where, text in places.items() if value in text] == []
        assert [name for name, data in files.items() if value.encode() in data] == []
