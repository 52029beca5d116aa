"""Issue 13.1: ``steps`` stops a runaway loop — at most ``steps`` + 1 model calls per prompt."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, ToolPart

BASH_FOREVER = Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo again"}))])
RUNAWAY = 12
"""Scripted tool calls before the server answers 400: a loop without a cap fails fast, not hangs."""


def test_headless_run_stops_at_the_step_cap(tmp_path: Path, scripted_server: Any) -> None:
    """A model calling bash on every step: the run ends after the cap, exit 1, one clear line."""
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"steps": 3}))
    scripted_server.queue(*[BASH_FOREVER] * RUNAWAY)
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "loop forever"], tmp_path
    )
    assert result.returncode == 1, result.stderr
    assert len(scripted_server.requests) <= 4
    last = scripted_server.requests[-1]["body"]
    assert last.get("tool_choice") == "none"
    assert last.get("tools"), "tools stay declared so past tool calls remain valid"
    assert "maximum" in json.dumps(last["messages"][-1]).lower()
    assert "Maximum steps reached (3" in result.stderr
    assert "Traceback" not in result.stderr


async def test_tool_call_on_the_last_step_is_not_run(make_runtime: Any, scripted_model: Any) -> None:
    touch = Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "touch ran-$RANDOM"}))])
    scripted_model.queue(*[touch] * RUNAWAY)
    runtime = make_runtime(steps=2)
    sid = await runtime.prompt("go")
    assert len(scripted_model.requests) == 2
    assert scripted_model.requests[0]["body"]["tool_choice"] == "auto"  # as OpenCode sends it
    history = runtime.recorder(sid).history()
    last = history[-1]
    assert isinstance(last.info, AssistantMessage)
    assert last.info.error is not None and last.info.error.name == "max_steps"
    refused = [p for p in last.parts if isinstance(p, ToolPart)]
    assert refused and all(p.state.status == "error" for p in refused)
    assert len(list(runtime.working_dir.glob("ran-*"))) == 1  # only the first step's call ran


async def test_unknown_tool_on_the_last_step_ends_the_run(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(*[Reply(tool_calls=[ToolCall("no_such_tool", "{}")])] * RUNAWAY)
    runtime = make_runtime(steps=2)
    await runtime.prompt("go")
    assert len(scripted_model.requests) == 2


async def test_a_text_answer_on_the_last_step_ends_normally(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(BASH_FOREVER, Reply(text="Here is where I stopped."))
    runtime = make_runtime(steps=2)
    sid = await runtime.prompt("go")
    last = runtime.recorder(sid).history()[-1].info
    assert isinstance(last, AssistantMessage) and last.error is None


def test_build_agent_has_a_default_cap() -> None:
    from jupyter_agent.agent.loop_settings import DEFAULT_MAX_STEPS

    assert 0 < DEFAULT_MAX_STEPS <= 200


OVERFLOW = ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length.")
SUMMARY = Reply(text="## Goal\n- keep going")


def _is_summary(request: dict[str, Any]) -> bool:
    last = request["body"]["messages"][-1]
    return "anchored summary" in json.dumps(last.get("content"))


async def test_overflow_on_the_last_step_cannot_extend_the_cap(
    make_runtime: Any, scripted_model: Any
) -> None:
    """A model (or proxy) that answers "context too long" on the last step gets one retry
    after the summary, never an endless compact-and-call cycle."""
    scripted_model.queue(BASH_FOREVER, *[OVERFLOW, SUMMARY] * RUNAWAY)
    runtime = make_runtime(steps=2)
    sid = await runtime.prompt("go")
    calls = [r for r in scripted_model.requests if not _is_summary(r)]
    assert len(calls) <= 3
    last = runtime.recorder(sid).history()[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None and last.error.name == "max_steps"
