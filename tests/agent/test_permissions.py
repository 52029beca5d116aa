"""Permission rules: wildcards, merge order, plan agent, headless refusal, interactive answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.permissions import PermissionManager, evaluate, merge
from jupyter_agent.agent.ports import PermissionContext
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.config import load_config
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion


def _who(session_id: str, *, interactive: bool = False) -> PermissionContext:
    """A call of the build agent in ``session_id``; ``interactive``: a user can answer."""
    return PermissionContext(session_id, "build", "m", "c", interactive=interactive)


def test_most_specific_pattern_wins() -> None:
    rules = merge({"*": "allow"}, {"bash": {"*": "ask", "git *": "allow", "git push *": "deny"}})
    assert evaluate(rules, "bash", ["git status"]) == "allow"
    assert evaluate(rules, "bash", ["git push origin main"]) == "deny"
    assert evaluate(rules, "bash", ["rm -rf x"]) == "ask"
    assert evaluate(rules, "bash", ["git status", "rm x"]) == "ask"  # any ask asks
    assert evaluate(rules, "read", ["a.py"]) == "allow"


def test_defaults_and_merge_order(tmp_path: Path) -> None:
    cfg = load_config(
        tmp_path,
        {"permission": {"bash": "ask"}, "agent": {"plan": {"permission": {"bash": "deny"}}}},
        env={},
        global_dir=tmp_path / "g",
    )
    manager = PermissionManager(Bus(), cfg)
    build = manager.rules_for("build")
    assert evaluate(build, "external_directory", ["/etc/*"]) == "ask"
    assert evaluate(build, "doom_loop", ["read"]) == "ask"
    assert evaluate(build, "bash", ["ls"]) == "ask"
    plan = manager.rules_for("plan")
    assert evaluate(plan, "edit", ["a.py"]) == "deny" and evaluate(plan, "bash", ["ls"]) == "deny"


async def test_headless_refusal_says_how_to_allow(tmp_path: Path) -> None:
    manager = PermissionManager(
        Bus(), load_config(tmp_path, {"permission": {"bash": "ask"}}, env={}, global_dir=tmp_path / "g")
    )
    with pytest.raises(PermissionDenied) as info:
        await manager.ask(_who("s"), PermissionQuestion("bash", ["make"], "Run make"))
    assert "not interactive" in str(info.value) and '{"permission": {"bash": "allow"}}' in str(info.value)


async def test_interactive_always_is_remembered(tmp_path: Path) -> None:
    bus = Bus()
    manager = PermissionManager(
        bus,
        load_config(tmp_path, {"permission": {"bash": "ask"}}, env={}, global_dir=tmp_path / "g"),
    )
    asked: list[str] = []

    def answer(event: Any) -> None:
        asked.append(event.request.id)
        asyncio.get_running_loop().call_soon(manager.reply, event.request.id, "always")

    off = bus.subscribe(answer, "permission.asked")
    await manager.ask(_who("s", interactive=True), PermissionQuestion("bash", ["make test"]))
    # remembered: no second ask
    await manager.ask(_who("s", interactive=True), PermissionQuestion("bash", ["make test"]))
    assert len(asked) == 1
    off()
    bus.subscribe(
        lambda e: asyncio.get_running_loop().call_soon(manager.reply, e.request.id, "reject"),
        "permission.asked",
    )
    with pytest.raises(PermissionDenied, match="rejected"):
        await manager.ask(_who("s2", interactive=True), PermissionQuestion("bash", ["rm x"]))


async def test_plan_agent_cannot_write(make_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "x.txt", "content": "no"}))]),
        Reply(text="I will propose it instead."),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("make x.txt", agent="plan")
    tool = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert tool.state.status == "error" and "denied" in tool.state.error
    assert not (tmp_path / "x.txt").exists()
    system = scripted_model.requests[0]["body"]["messages"][0]["content"]
    assert "plan mode" in system
    last_user = [m for m in scripted_model.requests[0]["body"]["messages"] if m["role"] == "user"][-1]
    assert "Plan mode is active" in json.dumps(last_user)


async def test_a_rejection_carries_the_users_reason(tmp_path: Path) -> None:
    bus = Bus()
    manager = PermissionManager(
        bus,
        load_config(tmp_path, {"permission": {"bash": "ask"}}, env={}, global_dir=tmp_path / "g"),
    )
    bus.subscribe(
        lambda e: asyncio.get_running_loop().call_soon(
            manager.reply, e.request.id, "reject", "  use pathlib, not rm  "
        ),
        "permission.asked",
    )
    with pytest.raises(PermissionDenied, match=r"with this feedback: use pathlib, not rm$"):
        await manager.ask(_who("s", interactive=True), PermissionQuestion("bash", ["rm x"]))


async def test_an_unknown_agent_is_an_error_not_the_build_agents_rules(tmp_path: Path) -> None:
    manager = PermissionManager(Bus(), load_config(tmp_path, {}, env={}, global_dir=tmp_path / "g"))
    with pytest.raises(KeyError, match="Unknown agent 'nobody'"):
        await manager.ask(PermissionContext("s", "nobody"), PermissionQuestion("bash", ["ls"]))
    with pytest.raises(KeyError, match="Unknown agent"):
        manager.action("nobody", "read", "a.txt")


async def test_each_run_asks_as_its_own_handle_says(make_runtime: Any, scripted_server: Any) -> None:
    """A panel run waiting for approval and a ``--wait`` cell run meanwhile: neither changes the other."""
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo a"}))]),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo b"}))]),
        Reply(text="b done"),
        Reply(text="a done"),
    )
    runtime = make_runtime(permission={"bash": "ask"})
    runtime.generate_titles = False
    asked = asyncio.Event()
    runtime.bus.subscribe(lambda e: asked.set(), "permission.asked")
    panel_sid, cell_sid = runtime.new_session().id, runtime.new_session().id
    panel = asyncio.create_task(
        runtime.prompt("run a", session_id=panel_sid, handle=RunHandle(interactive=True))
    )
    await asyncio.wait_for(asked.wait(), 60)
    await runtime.prompt("run b", session_id=cell_sid, handle=RunHandle(interactive=False))
    (request,) = runtime.permissions.pending(panel_sid)  # still waiting for its user
    runtime.permissions.reply(request.id, "once")
    await asyncio.wait_for(panel, 60)

    def bash(sid: str) -> ToolPart:
        return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))

    assert bash(cell_sid).state.status == "error" and "not interactive" in bash(cell_sid).state.error
    assert bash(panel_sid).state.status == "completed"
