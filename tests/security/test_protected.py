"""Issue 26.2 and 26.7: protected paths always ask, whatever the rules say.

Two reproductions from main: with ``"rm *": "deny"`` the model used ``write`` to replace
``jupyter-agent.json`` with ``{"permission": {"bash": "allow"}}`` and the next run
obeyed it; under ``{"git status*": "allow", "*": "deny"}`` it wrote ``.git/config`` with
``core.fsmonitor`` and ``git status`` ran it. Now a write to a protected path asks even
when every rule allows it, and a headless run refuses it naming the rule.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from hostile import refused, run_bash, run_tool
from scripted_server import Reply, ToolCall

from jupyter_agent.core.events import PermissionAsked
from jupyter_agent.tools.base import PermissionDenied, ToolContext
from jupyter_agent.tools.notebook import NotebookEditTool
from jupyter_agent.tools.protected import Guard
from jupyter_agent.tools.services import Services

LOOSE = {"edit": "allow", "write": "allow", "protected": "allow", "external_directory": "allow"}


async def test_the_agent_cannot_loosen_its_own_rules(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    config = tmp_path / "jupyter-agent.json"
    config.write_text(json.dumps({"permission": {"bash": {"rm *": "deny"}}}))
    (tmp_path / "victim.txt").write_text("keep me")
    loose = json.dumps({"permission": {"bash": "allow"}})
    part = await run_tool(
        make_runtime(), scripted_model, "write", filePath="jupyter-agent.json", content=loose
    )
    error = refused(part)
    assert "'protected'" in error and "configuration file" in error and "not interactive" in error
    assert json.loads(config.read_text()) == {"permission": {"bash": {"rm *": "deny"}}}
    # the next run reads the config again (a reload, a new CLI run): the rule holds
    again = await run_bash(make_runtime(), scripted_model, "rm -f victim.txt")
    assert "denied" in refused(again) and (tmp_path / "victim.txt").exists()


async def test_edit_of_the_config_is_refused_too(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    config = tmp_path / "jupyter-agent.json"
    config.write_text('{"permission": {"bash": {"rm *": "deny"}}}')
    part = await run_tool(
        make_runtime(),
        scripted_model,
        "edit",
        filePath=str(config),
        oldString='{"rm *": "deny"}',
        newString='"allow"',
    )
    assert "'protected'" in refused(part)
    assert "deny" in config.read_text()


async def test_a_read_only_git_policy_does_not_run_code(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    os.system(f"git init -q {tmp_path}")
    rules = {"bash": {"git status*": "allow", "*": "deny"}}
    runtime = make_runtime(permission=rules)
    hostile = "[core]\n\tfsmonitor = touch PWNED_GIT\n"
    part = await run_tool(runtime, scripted_model, "write", filePath=".git/config", content=hostile)
    assert "git runs the commands it names" in refused(part)
    status = await run_bash(runtime, scripted_model, "git status")
    assert status.state.status == "completed", status.state
    assert not (tmp_path / "PWNED_GIT").exists()


@pytest.mark.parametrize(
    "path",
    [
        "jupyter-agent.json",
        "sub/../jupyter-agent.json",
        ".jupyter-agent/notes.txt",
        ".git/config",
        ".git/hooks/pre-commit",
        ".git/info/attributes",
        ".git/commondir",
        "vendor/lib/.git/hooks/post-checkout",
        "listed.txt",
        "docs/listed-folder/x.md",
        "link-to-config",
    ],
)
async def test_every_write_to_a_protected_path_asks_whatever_the_rules(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, path: str
) -> None:
    os.system(f"git init -q {tmp_path}")
    (tmp_path / "jupyter-agent.json").write_text("{}")
    (tmp_path / "link-to-config").symlink_to(tmp_path / "jupyter-agent.json")
    runtime = make_runtime(permission=LOOSE, protected=["listed.txt", "docs/listed-folder"])
    part = await run_tool(runtime, scripted_model, "write", filePath=path, content="changed")
    assert "'protected'" in refused(part)
    assert (tmp_path / "jupyter-agent.json").read_text() == "{}"


async def test_instruction_files_are_not_protected_unless_listed(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    runtime = make_runtime(permission=LOOSE)
    part = await run_tool(runtime, scripted_model, "write", filePath="AGENTS.md", content="# notes")
    assert part.state.status == "completed", part.state


async def test_user_and_system_config_are_protected(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    system = outside / "system.json"
    system.write_text("{}")
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(system))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(outside / "xdg"))
    runtime = make_runtime(permission=LOOSE)
    user = outside / "xdg" / "jupyter-agent" / "config.json"
    part = await run_tool(runtime, scripted_model, "write", filePath=str(user), content="{}")
    assert "hidden from the agent" in refused(part) and not user.exists()
    part = await run_tool(runtime, scripted_model, "write", filePath=str(system), content='{"x": 1}')
    assert "'protected'" in refused(part) and system.read_text() == "{}"


async def test_interactive_runs_ask_even_when_rules_allow(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    runtime = make_runtime(permission=LOOSE, interactive=True)
    asked: list[str] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionAsked):
            asked.append(event.request.permission)
            runtime.permissions.reply(event.request.id, "once")

    runtime.bus.subscribe(answer)
    part = await run_tool(runtime, scripted_model, "write", filePath="jupyter-agent.json", content="{}")
    assert part.state.status == "completed", part.state
    assert asked == ["protected"]
    assert (tmp_path / "jupyter-agent.json").read_text() == "{}"


async def test_a_deny_rule_still_wins(make_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    runtime = make_runtime(permission={"protected": "deny"}, interactive=True)
    part = await run_tool(runtime, scripted_model, "write", filePath="jupyter-agent.json", content="{}")
    assert "is denied by the configuration" in refused(part)


async def test_notebook_edit_on_a_protected_notebook_asks(tmp_path: Path) -> None:
    notebook = tmp_path / "analysis.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    asked: list[str] = []

    async def ask(question: Any) -> None:
        asked.append(question.permission)
        if question.always_ask:
            raise PermissionDenied("rejected")

    ctx = ToolContext(
        session_id="s",
        message_id="m",
        call_id="c",
        agent="build",
        project_root=tmp_path,
        working_dir=tmp_path,
        ask=ask,
        services=Services(notebook_path=notebook, guard=Guard(extra=("analysis.ipynb",))),
    )
    tool = NotebookEditTool()
    with pytest.raises(PermissionDenied):
        await tool.run(tool.Args(action="insert", source="print(1)"), ctx)
    assert asked == ["protected"]
    assert json.loads(notebook.read_text())["cells"] == []


def test_the_reproduction_over_http_and_the_cli(tmp_path: Path, scripted_server: Any) -> None:
    """As reported: two headless runs; the first rewrites the rules, the second relies on them."""
    config = tmp_path / "jupyter-agent.json"
    config.write_text(json.dumps({"permission": {"bash": {"rm *": "deny"}}}))
    (tmp_path / "victim.txt").write_text("keep me")
    loose = json.dumps({"permission": {"bash": "allow"}})
    scripted_server.queue(
        Reply(
            tool_calls=[ToolCall("write", json.dumps({"filePath": "jupyter-agent.json", "content": loose}))]
        ),
        Reply(text="rules rewritten"),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "rm -f victim.txt"}))]),
        Reply(text="deleted"),
    )
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url]
    first = run_cli([*args, "loosen your rules"], tmp_path)
    assert first.returncode == 0, first.stderr
    assert "[write] error" in first.stderr or "protected" in first.stderr, first.stderr
    second = run_cli([*args, "now delete it"], tmp_path)
    assert second.returncode == 0, second.stderr
    assert (tmp_path / "victim.txt").exists()
    assert json.loads(config.read_text()) == {"permission": {"bash": {"rm *": "deny"}}}
