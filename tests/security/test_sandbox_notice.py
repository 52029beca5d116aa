"""Issue 26.1: when no sandbox can start, each front end says so, once per session.

The sandbox is forced not to start with ``JUPYTER_AGENT_BWRAP`` naming a program that does
not exist (as on a machine without bubblewrap, or with user namespaces off).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from scripted_server import Reply, ToolCall

from jupyter_agent.ui.comm_target import TARGET

NOTICE = "bash runs without the OS sandbox"


def test_the_cli_says_so_once(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo from-bash"}))]),
        Reply(text="done"),
    )
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "go"]
    result = run_cli(args, tmp_path, JUPYTER_AGENT_BWRAP=str(tmp_path / "no-bwrap"))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(NOTICE) == 1, result.stderr
    assert "no-bwrap" in result.stderr and "docs/security.md" in result.stderr
    assert "[bash] completed" in result.stderr  # the command still ran, unconfined
    # no notice where the sandbox starts: test_sandbox.py::test_an_older_bubblewrap_still_sandboxes


@pytest.mark.kernel
def test_the_cell_says_so_once_per_session(start_kernel: Any, scripted_server: Any, monkeypatch: Any) -> None:
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", "/nonexistent/bwrap")
    scripted_server.queue(Reply(text="one"), Reply(text="two"))
    kernel = start_kernel()

    def shown(line: str) -> str:
        result = kernel.execute(line)
        assert result.status == "ok", result.error
        return " ".join(str(o.get("data", {}).get("text/plain", "")) for o in result.outputs)

    first, again = shown("%agent --wait first"), shown("%agent --wait second")
    assert first.count(NOTICE) == 1 and NOTICE not in again


@pytest.mark.kernel
def test_the_panel_says_so_once_per_session(
    start_kernel: Any, scripted_server: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", "/nonexistent/bwrap")
    scripted_server.queue(Reply(text="one"), Reply(text="two"))
    kernel = start_kernel(frontend=True)
    comm = kernel.comm_open(TARGET, {"type": "hello", "notebook_path": "analysis.ipynb"})

    def on_comm(kind: str) -> list[dict[str, Any]]:
        return [
            m["content"]["data"]
            for m in kernel.iopub
            if m["msg_type"] == "comm_msg"
            and m["content"]["comm_id"] == comm
            and m["content"]["data"].get("kind") == kind
        ]

    def answered(reply: str) -> bool:
        parts = [m.get("part", {}).get("text", "") for m in on_comm("part")]
        return reply in "".join(m.get("text", "") for m in on_comm("delta")) + "".join(parts)

    kernel.wait_for(lambda _m: bool(on_comm("hello")), 60)
    for text, reply in (("first", "one"), ("second", "two")):
        kernel.comm_data(comm, {"type": "prompt", "text": text})
        kernel.wait_for(lambda _m, reply=reply: answered(reply), 90)
    told = [n for n in on_comm("notice") if NOTICE in n.get("text", "")]
    assert len(told) == 1, on_comm("notice")
