"""Issue 13.3: the plan agent is read-only, decided from the parsed command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.permissions import PermissionManager, evaluate
from jupyter_agent.config import load_config
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import ToolPart


async def _run_plan(make_runtime: Any, scripted_server: Any, tool: str, args: dict[str, Any]) -> ToolPart:
    scripted_server.queue(Reply(tool_calls=[ToolCall(tool, json.dumps(args))]), Reply(text="ok"))
    runtime = make_runtime()
    sid = await runtime.prompt("look only", agent="plan")
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


@pytest.mark.parametrize(
    ("command", "harm"),
    [
        ("ls; touch PWNED", lambda root: (root / "PWNED").exists()),
        ("cat a.txt > b.txt", lambda root: (root / "b.txt").exists()),
        ("ls $(rm -f x.txt)", lambda root: not (root / "x.txt").exists()),
        ("ls `rm -f x.txt`", lambda root: not (root / "x.txt").exists()),
        ("ls && sort -o b.txt a.txt", lambda root: (root / "b.txt").exists()),
        ("find . -name x.txt -delete", lambda root: not (root / "x.txt").exists()),
        ("git -c core.pager=touch\\ PWNED log", lambda root: (root / "PWNED").exists()),
        ("FOO=1 ls", lambda root: False),
        ("echo hi | tee b.txt", lambda root: (root / "b.txt").exists()),
    ],
)
async def test_plan_refuses_commands_that_write(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str, harm: Any
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "x.txt").write_text("keep me\n")
    part = await _run_plan(make_runtime, scripted_model, "bash", {"command": command})
    assert part.state.status == "error" and "not interactive" in part.state.error, part.state
    assert not harm(tmp_path)


@pytest.mark.parametrize(
    "command", ["ls; cat a.txt | head -1", "grep -n a a.txt && wc -l a.txt", "git status"]
)
async def test_plan_runs_read_only_commands(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    part = await _run_plan(make_runtime, scripted_model, "bash", {"command": command})
    assert part.state.status == "completed", part.state


async def test_plan_cannot_start_a_writing_sub_agent(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    args = {"description": "write it", "prompt": "create PWNED", "subagent_type": "general"}
    part = await _run_plan(make_runtime, scripted_model, "task", args)
    assert part.state.status == "error" and "'task' for general" in part.state.error
    assert len(scripted_model.requests) == 2  # no child session ever asked the model


def test_python_asks_under_plan_and_write_tools_are_denied(tmp_path: Path) -> None:
    manager = PermissionManager(Bus(), load_config(tmp_path, {}, env={}, global_dir=tmp_path / "g"))
    rules = manager.rules_for("plan")
    assert evaluate(rules, "python", ["open('x', 'w').write('y')"]) == "ask"
    assert evaluate(rules, "bash_write", ["touch x"]) == "ask"
    for tool in ("write", "edit", "notebook_edit"):
        assert evaluate(rules, tool, ["x.txt"]) == "deny"
    assert evaluate(rules, "task", ["explore"]) == "allow"
    build = manager.rules_for("build")
    assert evaluate(build, "python", ["x"]) == evaluate(build, "bash_write", ["touch x"]) == "allow"
