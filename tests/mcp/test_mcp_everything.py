"""The reference MCP server (`@modelcontextprotocol/server-everything` from npm, installed by
scripts/install.sh into .venv/node) in a real kernel with a side panel: its resources are
offered by `@` completion (panel and Tab in a cell) and reach the model fenced; its prompts
are slash commands in the panel and `%agent /server:name args` in cells."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply

from jupyter_agent.ui.comm_target import TARGET

ROOT = Path(__file__).resolve().parents[2]
SERVER = (
    ROOT
    / ".venv"
    / "node"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)
NODE = shutil.which("node")
RESOURCE = "demo://resource/static/document/architecture.md"

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(
        NODE is None or not SERVER.is_file(),
        reason="needs node and @modelcontextprotocol/server-everything in .venv/node (scripts/install.sh)",
    ),
]


def _panel(
    kernel: Any, comm_id: str, kind: str, predicate: Any, timeout: float = 90, since: int = 0
) -> dict[str, Any]:
    for m in kernel.iopub[since:]:
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id:
            data = m["content"]["data"]
            if data.get("kind") == kind and predicate(data):
                return dict(data)

    def match(msg: dict[str, Any]) -> bool:
        if msg["msg_type"] != "comm_msg" or msg["content"]["comm_id"] != comm_id:
            return False
        data = msg["content"]["data"]
        return bool(data.get("kind") == kind and predicate(data))

    return dict(kernel.wait_for(match, timeout)["content"]["data"])


def _last_user_text(request: dict[str, Any]) -> str:
    users = [m for m in request["body"]["messages"] if m["role"] == "user"]
    content = users[-1]["content"]
    return content if isinstance(content, str) else " ".join(c.get("text", "") for c in content)


def _requests(server: Any, count: int, kernel: Any, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while len(server.requests) < count and time.time() < deadline:
        kernel.drain(0.3)
    assert len(server.requests) >= count, server.requests


def _tab(kernel: Any, code: str) -> list[str]:
    msg_id = kernel.kc.complete(code, len(code))
    reply = kernel.kc.get_shell_msg(timeout=60)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kernel.kc.get_shell_msg(timeout=60)
    content = reply["content"]  # each match replaces the code from cursor_start on
    return [code[: content["cursor_start"]] + m for m in content["matches"]]


def test_resources_and_prompts_of_a_real_server(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    config = {"mcp": {"everything": {"type": "local", "command": [NODE, str(SERVER), "stdio"]}}}
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    scripted_server.title_reply = Reply(text="A title")
    kernel = start_kernel(frontend=True)
    comm = kernel.comm_open(TARGET, {"type": "hello", "notebook_path": "analysis.ipynb"})
    _panel(kernel, comm, "mcp", lambda m: True)

    # `@everything:` in the panel starts the server and lists its resources
    kernel.comm_data(
        comm, {"type": "complete", "request_id": "1", "query": "everything:demo://resource/static/"}
    )
    listed = _panel(kernel, comm, "completions", lambda m: m["request_id"] == "1")
    assert f"everything:{RESOURCE}" in [i["label"] for i in listed["items"]], listed
    shown = _panel(kernel, comm, "mcp", lambda m: m["servers"][0]["state"] == "connected")
    prompts = {p["name"]: p["usage"] for p in shown["servers"][0]["prompts"]}
    assert prompts["args-prompt"] == "/everything:args-prompt city=… [state=…]" and "simple-prompt" in prompts
    assert shown["servers"][0]["resources"] >= 1

    # a prompt from the panel runs as a slash command
    scripted_server.queue(Reply(text="It is sunny."))
    mark = len(kernel.iopub)
    kernel.comm_data(comm, {"type": "prompt", "text": "/everything:args-prompt city=Paris"})
    _requests(scripted_server, 1, kernel)
    _panel(kernel, comm, "status", lambda m: m["state"] == "idle", since=mark)  # the panel's run ended
    sent = _last_user_text(scripted_server.requests[0])
    assert "Paris" in sent and "/everything:" not in sent, sent

    # a resource mentioned in a cell reaches the model fenced
    scripted_server.queue(Reply(text="It describes the architecture."))
    done = kernel.execute(f"%agent --wait what does @everything:{RESOURCE} describe?")
    assert done.status == "ok", done.error
    sent = _last_user_text(scripted_server.requests[-1])
    assert f'ref="@everything:{RESOURCE}"' in sent and "<mention_" in sent
    assert "Architecture" in sent.split("<mention_", 1)[1], sent

    # Tab in a cell offers the resources of the running server, and its prompts after a slash
    offered = _tab(kernel, "%agent @everything:demo://resource/static/document/arch")
    assert f"%agent @everything:{RESOURCE}" in offered, offered
    assert "%agent /everything:simple-prompt" in _tab(kernel, "%agent /everything:sim")

    # a prompt in a cell, and a typo said in one line before anything is sent
    scripted_server.queue(Reply(text="Simple."))
    before = len(scripted_server.requests)
    assert kernel.execute("%agent --wait /everything:simple-prompt").status == "ok"
    assert "This is a simple prompt without arguments." in _last_user_text(scripted_server.requests[before])
    typo = kernel.execute("%agent --wait /everything:simple-promt")
    assert typo.status == "error" and typo.error is not None  # a blocking cell stops there, in one line
    assert "has no prompt 'simple-promt'; its prompts: /everything:simple-prompt" in typo.error["evalue"]
    assert len(scripted_server.requests) == before + 1
