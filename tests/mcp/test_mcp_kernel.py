"""MCP in a real kernel: nothing starts at %load_ext, the first prompt starts the servers,
``%agent mcp`` lists them, an "ask" is answered in the widget, and servers end with the kernel."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import Kernel, wait_widget_idle
from mcp_support import odd_server, stdio_server
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.kernel

MODULES = "import sys; print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))"


def _config(tmp_path: Path, **extra: Any) -> Path:
    started = tmp_path / "started.txt"
    config = {"mcp": {"demo": stdio_server(DEMO_STARTED_FILE=str(started))}, **extra}
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    return started


def _pids(started: Path) -> list[int]:
    return [int(line) for line in started.read_text().split()] if started.exists() else []


def _gone(pid: int, within: float = 20.0) -> bool:
    deadline = time.time() + within
    while time.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def _approve(kernel: Kernel, permission: str) -> None:
    asked = kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("kind") == "permission"
        ),
        timeout=90,
    )
    request = asked["content"]["data"]["content"]["request"]
    assert request["permission"] == permission and request["patterns"] == [permission]
    reply = {"type": "approve", "request_id": request["id"], "reply": "once"}
    kernel.comm_send(asked["content"]["comm_id"], reply)


def test_lazy_start_listing_and_stop_with_the_kernel(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    started = _config(tmp_path, permission={"demo_*": "allow", "odd_*": "allow"})
    config = json.loads((tmp_path / "jupyter-agent.json").read_text())
    config["mcp"]["odd"] = odd_server("garbage")  # its stdout junk must not reach the cell
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    kernel = start_kernel()
    assert kernel.execute(MODULES).stdout.strip() == "[]"
    assert kernel.execute("%agent config").status == "ok"  # reading the config starts nothing
    time.sleep(1)
    assert _pids(started) == []

    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "hi"})), ToolCall("odd_noisy", "{}")]),
        Reply(text="done"),
    )
    result = kernel.execute("%agent --wait echo hi")
    assert result.status == "ok" and result.stderr == "", (result.error, result.stderr, result.stdout)
    (pid,) = _pids(started)
    tools = [m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert "echo: HI" in tools[0]["content"] and "quiet now" in tools[1]["content"]

    listing = kernel.execute("%agent mcp")
    assert listing.status == "ok" and listing.stderr == ""
    assert "demo  [connected]" in listing.stdout and "  - demo_echo: Echo the text back" in listing.stdout
    assert "odd  [connected]" in listing.stdout and "odd_noisy" in listing.stdout
    assert kernel.execute("%agent config").status == "ok"  # a reload keeps unchanged servers
    assert "demo  [connected]" in kernel.execute("%agent mcp").stdout and _pids(started) == [pid]
    config["mcp"]["odd"]["enabled"] = False
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    relisted = kernel.execute("%agent mcp").stdout  # the file is read again: only odd's entry changed
    assert "odd  [disabled]" in relisted and "demo  [connected]" in relisted
    assert _pids(started) == [pid], "a server whose entry did not change was restarted"
    config["mcp"]["demo"]["environment"]["DEMO_EXTRA"] = "1"
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    assert "demo  [connected]" in kernel.execute("%agent mcp").stdout  # demo's entry changed
    assert _gone(pid), "a config change left the old server running"
    (pid,) = _pids(started)[1:]
    kernel.shutdown()
    assert _gone(pid), "the MCP server outlived its kernel"


def test_ask_answered_in_the_widget_and_a_kernel_restart(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    started = _config(tmp_path)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "first"}))]),
        Reply(text="one"),
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "second"}))]),
        Reply(text="two"),
    )
    kernel = start_kernel(frontend=True)
    kernel.execute("%agent echo first")
    _approve(kernel, "demo_echo")
    wait_widget_idle(kernel, timeout=90)
    assert "echo: FIRST" in json.dumps(scripted_server.requests[1]["body"]["messages"])
    (first,) = _pids(started)

    kernel.restart()
    assert _gone(first), "the MCP server outlived its kernel's restart"
    assert kernel.execute("%load_ext jupyter_agent").status == "ok"
    assert _pids(started) == [first]  # %load_ext after the restart starts nothing either
    kernel.execute("%agent echo second")
    _approve(kernel, "demo_echo")
    wait_widget_idle(kernel, timeout=90)
    assert "echo: SECOND" in json.dumps(scripted_server.requests[3]["body"]["messages"])
    assert len(_pids(started)) == 2 and _pids(started)[1] != first


def _panel_messages(kernel: Kernel, comm_id: str) -> list[dict[str, Any]]:
    return [
        m["content"]["data"]
        for m in kernel.iopub
        if m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == comm_id
    ]


def _panel_wait(
    kernel: Kernel, comm_id: str, kind: str, predicate: Any, timeout: float = 90
) -> dict[str, Any]:
    for data in _panel_messages(kernel, comm_id):
        if data.get("kind") == kind and predicate(data):
            return data

    def match(msg: dict[str, Any]) -> bool:
        if msg["msg_type"] != "comm_msg" or msg["content"]["comm_id"] != comm_id:
            return False
        data = msg["content"]["data"]
        return bool(data.get("kind") == kind and predicate(data))

    return dict(kernel.wait_for(match, timeout)["content"]["data"])


def test_panel_lists_servers_and_restarts_them(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    from jupyter_agent.ui.comm_target import TARGET

    started = _config(tmp_path, permission={"demo_*": "allow"})
    config = json.loads((tmp_path / "jupyter-agent.json").read_text())
    crash = "import sys; print('no database configured', file=sys.stderr); sys.exit(2)"
    config["mcp"]["broken"] = {"type": "local", "command": [sys.executable, "-c", crash]}
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    kernel = start_kernel(frontend=True)
    comm = kernel.comm_open(TARGET, {"type": "hello", "notebook_path": "analysis.ipynb"})
    first = _panel_wait(kernel, comm, "mcp", lambda m: True)
    assert [(s["name"], s["state"]) for s in first["servers"]] == [
        ("demo", "not started"),
        ("broken", "not started"),
    ]
    assert _pids(started) == []  # opening the panel starts nothing

    scripted_server.queue(
        Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "panel"}))]), Reply(text="done")
    )
    kernel.comm_data(comm, {"type": "prompt", "text": "echo from the panel"})

    def connected(m: dict[str, Any]) -> bool:
        return any(s["name"] == "demo" and s["state"] == "connected" for s in m["servers"])

    listed = _panel_wait(kernel, comm, "mcp", connected)
    demo, broken = listed["servers"]
    assert "demo_echo" in demo["tools"] and demo["source"].endswith("demo_server.py stdio")
    assert broken["state"] == "failed" and "no database configured" in broken["error"]
    notice = _panel_wait(kernel, comm, "notice", lambda m: "'broken'" in m["text"])
    assert notice["level"] == "warn"
    deadline = time.time() + 90
    while len(scripted_server.requests) < 2 and time.time() < deadline:
        kernel.drain(0.5)
    assert "echo: PANEL" in json.dumps(scripted_server.requests[1]["body"]["messages"])

    kernel.drain(1.0)
    before = len(_panel_messages(kernel, comm))
    kernel.comm_data(comm, {"type": "mcp", "action": "restart"})
    deadline = time.time() + 90
    while len(_pids(started)) < 2 and time.time() < deadline:
        kernel.drain(0.5)
    assert len(_pids(started)) == 2  # restarted: a new process
    after = lambda m: m in _panel_messages(kernel, comm)[before:] and connected(m)  # noqa: E731
    relisted = _panel_wait(kernel, comm, "mcp", after)
    assert relisted["servers"][1]["state"] == "failed"
