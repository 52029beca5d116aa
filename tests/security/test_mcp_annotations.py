"""Issue 26.4: plan is read-only across every tool source, MCP included.

On main, with a top-level ``"fs_*": "allow"``, ``--agent plan`` ran an MCP server's
``write_file`` (marked ``destructiveHint``) and wrote a file. Now plan runs only tools
their server marks ``readOnlyHint: true``; a destructive tool asks in every agent unless
a rule names it exactly; paths given to MCP tools meet the protected and hidden paths.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from hostile import refused, run_tool

pytestmark = pytest.mark.slow  # an MCP server per test (the SDK takes seconds to import)

SERVER = {
    "fs": {"type": "local", "command": [sys.executable, str(Path(__file__).parent / "fs_mcp_server.py")]}
}


@pytest.fixture
def fs_runtime(mcp_runtime: Any) -> Any:
    def make(**overrides: Any) -> Any:
        return mcp_runtime(mcp=SERVER, **overrides)

    return make


async def _call(runtime: Any, model: Any, tool: str, agent: str = "build", **args: Any) -> Any:
    await runtime.start_mcp()
    return await run_tool(runtime, model, tool, agent=agent, **args)


async def test_plan_does_not_run_a_destructive_tool_under_a_global_allow(
    fs_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    runtime = fs_runtime(permission={"fs_*": "allow"})
    target = tmp_path / "written.txt"
    part = await _call(runtime, scripted_model, "fs_write_file", agent="plan", path=str(target), content="x")
    assert "readOnlyHint" in refused(part)
    assert not target.exists()
    part = await _call(runtime, scripted_model, "fs_append_note", agent="plan", path=str(target), text="x")
    assert "readOnlyHint" in refused(part) and not target.exists()


async def test_plan_runs_a_read_only_tool(fs_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("DATA-42")
    runtime = fs_runtime(permission={"fs_*": "allow"})
    part = await _call(runtime, scripted_model, "fs_read_file", agent="plan", path=str(tmp_path / "data.txt"))
    assert part.state.status == "completed" and "DATA-42" in part.state.output, part.state


async def test_destructive_asks_unless_named_exactly(
    fs_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    target = tmp_path / "written.txt"
    loose = fs_runtime(permission={"fs_*": "allow"})
    part = await _call(loose, scripted_model, "fs_write_file", path=str(target), content="x")
    assert "destructiveHint" in refused(part) and not target.exists()
    note = await _call(loose, scripted_model, "fs_append_note", path=str(target), text="x")
    assert note.state.status == "completed", note.state  # not marked destructive: the wildcard holds
    named = fs_runtime(permission={"fs_write_file": "allow"})
    part = await _call(named, scripted_model, "fs_write_file", path=str(target), content="y")
    assert part.state.status == "completed" and target.read_text() == "y", part.state


async def test_the_agents_own_rules_may_lift_it(fs_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    target = tmp_path / "written.txt"
    runtime = fs_runtime(
        permission={"fs_*": "allow"},
        agent={"plan": {"permission": {"mcp_write": "allow", "fs_append_note": "allow"}}},
    )
    part = await _call(runtime, scripted_model, "fs_append_note", agent="plan", path=str(target), text="x")
    assert part.state.status == "completed", part.state


async def test_mcp_paths_meet_protected_and_hidden_paths(
    fs_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    (outside / ".netrc").write_text("NETRC-SECRET")
    monkeypatch.setenv("HOME", str(outside))
    config = tmp_path / "jupyter-agent.json"
    config.write_text("{}")
    runtime = fs_runtime(permission={"fs_write_file": "allow", "fs_read_file": "allow"})
    part = await _call(
        runtime, scripted_model, "fs_write_file", path=str(config), content='{"permission": {}}'
    )
    assert "'protected'" in refused(part) and config.read_text() == "{}"
    part = await _call(runtime, scripted_model, "fs_read_file", path=str(outside / ".netrc"))
    assert "hidden from the agent" in refused(part)
    assert "NETRC-SECRET" not in str(scripted_model.requests[-1])
