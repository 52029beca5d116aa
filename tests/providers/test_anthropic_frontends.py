"""Extended thinking with tool use from a real kernel and from the CLI, through litellm's
``anthropic/`` provider to the scripted Messages endpoint; signatures survive a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import MODEL, THINKING, AReply, AToolUse, AUsage, signature_for
from cli_runner import run_cli
from kernel_harness import Kernel, widget_traffic

FIRST = "I will compute it in Python."


def _project(tmp_path: Path) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"models": {MODEL: {"options": THINKING}}}))


def _assistant_blocks(body: dict[str, Any]) -> list[list[dict[str, Any]]]:
    return [
        m["content"] for m in body["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
    ]


def _turn(tool: AToolUse, answer: str) -> tuple[AReply, AReply]:
    return (
        AReply(
            thinking=FIRST, tool_uses=[tool], usage=AUsage(input_tokens=900, cache_creation_input_tokens=800)
        ),
        AReply(
            thinking="Now answer.", text=answer, usage=AUsage(input_tokens=50, cache_read_input_tokens=800)
        ),
    )


@pytest.mark.kernel
def test_kernel_tool_turn_with_thinking_and_restart(anthropic_server: Any, tmp_path: Path) -> None:
    _project(tmp_path)
    anthropic_server.queue(*_turn(AToolUse("python", {"code": "total = 6 * 7\ntotal"}), "The total is 42."))
    env = {
        # a notebook open in JupyterLab: the live widget (and its gauge) streams the run
        "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb"),
        "JUPYTER_AGENT_MODEL": MODEL,
        "JUPYTER_AGENT_API_BASE": anthropic_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-ant-test",
    }
    kernel = Kernel(tmp_path, env)
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        result = kernel.execute("%agent --wait compute 6*7")
        assert result.status == "ok", result.error
        assert anthropic_server.refusals == []
        assert kernel.execute("print(total)").stdout.strip() == "42"
        gauges = [m["text"] for m in widget_traffic(kernel) if m.get("kind") == "gauge"]
        # the session's cost: the turn's $0.0067, then $0.0068 once its title's call is counted
        # (the title runs beside the turn and may end after the turn's last gauge)
        assert gauges and gauges[-1].endswith(("· $0.0067 session", "· $0.0068 session")), gauges
        table = json.dumps(kernel.execute("%agent sessions").outputs)
        assert "<th>cost</th>" in table and ("$0.0068" in table or "$0.0067" in table), table
        shown = kernel.execute("%agent config").shown
        assert '"budget_tokens": 1024' in shown and "sk-ant-test" not in shown
    finally:
        kernel.shutdown()
    # a new kernel continues the session: the stored signature goes back with the history
    anthropic_server.queue(AReply(text="Still 42."))
    kernel = Kernel(tmp_path, env)
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        assert kernel.execute("%agent --wait and again?").status == "ok"
    finally:
        kernel.shutdown()
    assert anthropic_server.refusals == []
    last = anthropic_server.requests[-1]["body"]
    first_step = _assistant_blocks(last)[0]
    assert first_step[0] == {"type": "thinking", "thinking": FIRST, "signature": signature_for(FIRST)}


def test_cli_tool_turn_with_thinking_and_continue(anthropic_server: Any, tmp_path: Path) -> None:
    _project(tmp_path)
    anthropic_server.queue(*_turn(AToolUse("bash", {"command": "echo from-bash"}), "All done: from-bash."))
    base = ["--model", MODEL, "--api-base", anthropic_server.base_url]
    result = run_cli(["run", *base, "say hi"], tmp_path, JUPYTER_AGENT_API_KEY="sk-ant-test")
    assert result.returncode == 0, result.stderr
    assert "All done: from-bash." in result.stdout and anthropic_server.refusals == []
    anthropic_server.queue(*_turn(AToolUse("bash", {"command": "echo again"}), "Again."))
    again = run_cli(["run", "--continue", *base, "once more"], tmp_path, JUPYTER_AGENT_API_KEY="sk-ant-test")
    assert again.returncode == 0, again.stderr
    assert anthropic_server.refusals == []
    blocks = _assistant_blocks(anthropic_server.requests[-1]["body"])
    signed = [b for step in blocks for b in step if b["type"] == "thinking"]
    assert len(signed) == 3 and all(b["signature"] == signature_for(b["thinking"]) for b in signed)
