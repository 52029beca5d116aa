"""The side panel and a configuration that changes while the kernel runs (a real kernel).

With no model configured the panel must still open and say how to set one (it said "not
loaded"); it picks the model up as soon as a cell sets it; a permission rule added to
``jupyter-agent.json`` after the first prompt is enforced on the next prompt from the panel.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import kernel_harness
import pytest
from scripted_server import Reply, ToolCall
from test_panel_comm import Panel

pytestmark = pytest.mark.kernel


def _bash(command: str) -> Reply:
    return Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))])


def test_no_model_then_a_model_then_a_new_rule_then_none(tmp_path: Path, scripted_server: Any) -> None:
    env = {
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb"),  # JupyterLab serves it: a live front end
    }
    kernel = kernel_harness.Kernel(tmp_path, env)
    try:
        # no model configured, the panel's "Load jupyter-agent": it opens with the guidance
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        panel = Panel(kernel)
        first = panel.wait("hello", timeout=60)
        assert first["session_id"].startswith("ses") and "JUPYTER_AGENT_MODEL" in first["problem"]
        mark = len(panel.seen)
        kernel.execute("%env JUPYTER_AGENT_MODEL=openai/test")  # picked up without reconnecting
        assert panel.wait_after(mark, "hello")["model"] == "openai/test"
        scripted_server.queue(_bash("echo one > first.txt"), Reply(text="ran it"))
        panel.send(type="prompt", text="run the command")
        panel.wait("status", lambda m: m["state"] == "idle" and "ran it" in panel.text(), timeout=90)
        assert (tmp_path / "first.txt").exists()

        # a rule added after the first prompt: the next prompt from the panel asks first
        (tmp_path / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
        scripted_server.queue(_bash("echo two > second.txt"), Reply(text="left it"))
        mark = len(panel.seen)
        panel.send(type="prompt", text="run it again")
        asked = panel.wait("permission", timeout=60)["request"]
        assert not (tmp_path / "second.txt").exists()
        notices = [m.get("text", "") for m in panel.seen[mark:] if m.get("kind") == "notice"]
        assert any("Settings changed" in n and "jupyter-agent.json" in n for n in notices), notices
        panel.send(type="approve", request_id=asked["id"], reply="reject")
        panel.wait("status", lambda m: m["state"] == "idle" and "left it" in panel.text(), timeout=60)
        assert not (tmp_path / "second.txt").exists()

        # no model any more: the open panel says so at once, and a reloaded page still opens
        mark = len(panel.seen)
        kernel.execute("import os\ndel os.environ['JUPYTER_AGENT_MODEL']")
        assert "No model is configured" in panel.wait_after(mark, "hello")["problem"]
        reloaded = Panel(kernel)
        hello = reloaded.wait("hello", timeout=30)
        # open, with a session and the guidance in its empty state (not "not loaded")
        assert hello["session_id"].startswith("ses") and "JUPYTER_AGENT_MODEL" in hello["problem"]
        closed = [m["content"]["comm_id"] for m in kernel.iopub if m["msg_type"] == "comm_close"]
        assert reloaded.comm_id not in closed
        reloaded.send(type="prompt", text="hello?")  # told what to do; the comm stays
        reloaded.wait("notice", lambda m: "No model is configured" in m.get("text", ""))

        # a cell sets the model: the panel picks it up without reconnecting
        mark = len(reloaded.seen)
        kernel.execute("%env JUPYTER_AGENT_MODEL=openai/test")
        again = reloaded.wait_after(mark, "hello")
        assert again["model"] == "openai/test" and "problem" not in again
        scripted_server.queue(Reply(text="hello there"))
        reloaded.send(type="prompt", text="hello again")
        reloaded.wait(
            "status", lambda m: m["state"] == "idle" and "hello there" in reloaded.text(), timeout=60
        )
    finally:
        kernel.shutdown()
