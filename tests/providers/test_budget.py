"""Budgets: the loop stops after the step whose cost crosses ``turn_usd`` / ``session_usd``
(priced by litellm for Claude at the scripted Anthropic endpoint); nothing is lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anthropic_server import MODEL, AReply, AToolUse, AUsage
from cli_runner import run_cli

from jupyter_agent.core.messages import AssistantMessage, ToolPart

# 1000 input + 100 output tokens of Sonnet 4.5 = $0.0045 a step
STEP = AUsage(input_tokens=1000, output_tokens=100)


def _looping(n: int) -> list[AReply]:
    return [AReply(tool_uses=[AToolUse("bash", {"command": f"echo step{i}"})], usage=STEP) for i in range(n)]


async def test_turn_budget_stops_a_looping_prompt(make_claude: Any, anthropic_server: Any) -> None:
    anthropic_server.queue(*_looping(10))
    runtime = make_claude(budget={"turn_usd": 0.01})
    sid = await runtime.prompt("loop forever")
    assert len(anthropic_server.requests) == 3  # $0.0090 < $0.01 after two steps, $0.0135 after three
    history = runtime.store.messages(sid)
    last = history[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert last.error.message.startswith("Stopped: this prompt reached its budget of $0.01 (spent $0.0135;")
    tools = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert [t.state.status for t in tools] == ["completed"] * 3  # the crossing step's tool ran and is kept
    # the next prompt has its own turn budget and continues the history
    anthropic_server.clear()
    anthropic_server.queue(AReply(text="ok, stopping", usage=STEP))
    await runtime.prompt("that is enough", session_id=sid)
    assert anthropic_server.refusals == []
    body = anthropic_server.requests[-1]["body"]
    results = [b for m in body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
    assert sum(1 for b in results if b.get("type") == "tool_result") == 3


async def test_session_budget_refuses_the_next_prompt_without_a_call(
    make_claude: Any, anthropic_server: Any
) -> None:
    anthropic_server.queue(AReply(text="first", usage=AUsage(input_tokens=3000, output_tokens=100)))
    runtime = make_claude(budget={"session_usd": 0.01})
    sid = await runtime.prompt("one")
    assert runtime.store.messages(sid)[-1].info.error is None  # $0.0105: crossed by the last step
    calls = len(anthropic_server.requests)
    await runtime.prompt("two", session_id=sid)
    assert len(anthropic_server.requests) == calls
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "session budget of $0.01 is used up (spent $0.0105)" in last.error.message


def test_cli_budget_flag(tmp_path: Path, anthropic_server: Any) -> None:
    anthropic_server.queue(*_looping(6))
    base = ["--model", MODEL, "--api-base", anthropic_server.base_url]
    result = run_cli(["run", *base, "--budget", "0.005", "loop"], tmp_path, JUPYTER_AGENT_API_KEY="k")
    assert result.returncode == 1
    assert len(anthropic_server.requests) == 2
    assert "error: Stopped: this prompt reached its budget of $0.005 (spent $0.0090;" in result.stderr
    assert "cost: $0.0090 this prompt" in result.stderr and "Traceback" not in result.stderr
    bad = run_cli(["run", *base, "--budget", "free", "x"], tmp_path, JUPYTER_AGENT_API_KEY="k")
    assert bad.returncode == 2 and "not an amount in USD above 0" in bad.stderr
