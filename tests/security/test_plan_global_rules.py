"""A global rule written for the build agent does not make the plan agent write.

Found by an outside check after issue 13: with ``"permission": {"write": "allow"}`` in
``jupyter-agent.json`` (so build stops asking), ``--agent plan`` wrote files, ran python
and started a writing sub-agent. ``agent.plan.permission`` still loosens plan on purpose.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.agent.permissions import PermissionManager, evaluate
from jupyter_agent.config import load_config
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import ToolPart

LOOSE = {"write": "allow", "edit": "allow", "notebook_edit": "allow", "python": "allow"}
LOOSE |= {"task": "allow", "bash_write": "allow", "bash": "allow"}


def _rules(tmp_path: Path, name: str, **flags: Any) -> Any:
    config = load_config(tmp_path, flags, env={}, global_dir=tmp_path / "g")
    return PermissionManager(Bus(), config).rules_for(name)


def test_global_allows_do_not_loosen_read_only_agents(tmp_path: Path) -> None:
    for agent in ("plan", "explore"):
        rules = _rules(tmp_path, agent, permission=LOOSE)
        for tool in ("write", "edit", "notebook_edit"):
            assert evaluate(rules, tool, ["x.txt"]) == "deny", (agent, tool)
        assert evaluate(rules, "bash_write", ["touch x"]) == "ask"
    plan = _rules(tmp_path, "plan", permission=LOOSE)
    assert evaluate(plan, "python", ["open('x', 'w')"]) == "ask"
    assert evaluate(plan, "task", ["general"]) == "ask"
    assert evaluate(plan, "task", ["explore"]) == "allow"
    assert evaluate(plan, "bash", ["cp a b"]) == "allow"  # then bash_write asks
    build = _rules(tmp_path, "build", permission={"write": "deny", "python": "ask"})
    assert evaluate(build, "write", ["x"]) == "deny" and evaluate(build, "python", ["x"]) == "ask"


def test_the_agents_own_config_still_loosens_it(tmp_path: Path) -> None:
    plan = _rules(tmp_path, "plan", permission=LOOSE, agent={"plan": {"permission": {"python": "allow"}}})
    assert evaluate(plan, "python", ["x"]) == "allow"
    assert evaluate(plan, "write", ["x.txt"]) == "deny"


async def test_plan_does_not_write_under_a_global_allow(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    call = ToolCall("write", json.dumps({"filePath": "PWNED.txt", "content": "x"}))
    scripted_model.queue(Reply(tool_calls=[call]), Reply(text="ok"))
    runtime = make_runtime(permission=LOOSE)
    sid = await runtime.prompt("plan only", agent="plan")
    part = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert part.state.status == "error" and "denied" in part.state.error
    assert not (tmp_path / "PWNED.txt").exists()
