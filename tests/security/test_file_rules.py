"""Issue 13.4: ``read`` rules apply to the files a search touches (grep, glob, list)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools.grep import GrepTool

SECRET = "DB_PASSWORD=hunter2-do-not-leak"


def _project(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "db.env").write_text(SECRET + "\n")
    (tmp_path / "app.py").write_text("DB_PASSWORD = os.environ['DB_PASSWORD']\n")
    (tmp_path / "local.env").write_text("DB_PASSWORD=local-only\n")


async def _outputs(
    make_runtime: Any, scripted_server: Any, rules: dict[str, Any], *calls: ToolCall
) -> list[str]:
    scripted_server.queue(Reply(tool_calls=list(calls)), Reply(text="done"))
    runtime = make_runtime(permission=rules)
    sid = await runtime.prompt("look around")
    parts = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart)]
    out = []
    for p in parts:
        assert p.state.status == "completed", p.state
        out.append(p.state.output)
    return out


@pytest.mark.parametrize("python_backend", [False, True])
async def test_read_deny_hides_files_from_grep_glob_and_list(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, python_backend: bool
) -> None:
    _project(tmp_path)
    # the fallback without ripgrep filters the same way
    make = _with_tool(make_runtime, GrepTool(use_ripgrep=False)) if python_backend else make_runtime
    grep_out, glob_out, list_out, sub_out = await _outputs(
        make,
        scripted_model,
        {"read": {"secrets/*": "deny"}},
        ToolCall("grep", json.dumps({"pattern": "DB_PASSWORD"})),
        ToolCall("glob", json.dumps({"pattern": "**/*"})),
        ToolCall("list", json.dumps({})),
        ToolCall("list", json.dumps({"path": "secrets"})),
    )
    assert "hunter2" not in grep_out and "db.env" not in grep_out
    assert "app.py" in grep_out and "1 file was withheld" in grep_out
    assert "db.env" not in glob_out and "app.py" in glob_out and "withheld" in glob_out
    assert "db.env" not in list_out and "app.py" in list_out and "withheld" in list_out
    assert "db.env" not in sub_out and "1 file was withheld" in sub_out
    sent = json.dumps(scripted_model.requests[-1]["body"]["messages"])
    assert "hunter2" not in sent


def _with_tool(make_runtime: Any, tool: Any) -> Any:
    def make(**overrides: Any) -> Any:
        runtime = make_runtime(**overrides)
        runtime.registry.register(tool)
        return runtime

    return make


async def test_grep_withholds_files_whose_read_asks(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    _project(tmp_path)
    grep_out, glob_out = await _outputs(
        make_runtime,
        scripted_model,
        {"read": {"*.env": "ask", "secrets/*": "ask"}},
        ToolCall("grep", json.dumps({"pattern": "DB_PASSWORD"})),
        ToolCall("glob", json.dumps({"pattern": "**/*.env"})),
    )
    assert "local-only" not in grep_out and "hunter2" not in grep_out
    assert "2 files were withheld" in grep_out and "use read to ask" in grep_out
    assert "local.env" in glob_out  # names only: asking rules do not hide them from glob


async def test_without_rules_nothing_is_withheld(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    _project(tmp_path)
    (grep_out,) = await _outputs(
        make_runtime, scripted_model, {}, ToolCall("grep", json.dumps({"pattern": "DB_PASSWORD"}))
    )
    assert "hunter2" in grep_out and "withheld" not in grep_out


async def test_a_catch_all_ask_does_not_withhold_everything(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    _project(tmp_path)
    (grep_out,) = await _outputs(
        make_runtime,
        scripted_model,
        {"*": "ask", "grep": "allow", "read": {"secrets/*": "deny"}},
        ToolCall("grep", json.dumps({"pattern": "DB_PASSWORD"})),
    )
    assert "app.py" in grep_out and "local-only" in grep_out
    assert "hunter2" not in grep_out and "1 file was withheld" in grep_out
