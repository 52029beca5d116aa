"""Issue 36: a rule checker that raises is a bug, never a crashed call or a command let through.

Each test injects a failing check (the checker's own function replaced by one that raises) and
shows the call asking (bash, as an unparsable line does) or refused with one line (paths,
MCP argument scans, the permission layer), the failure logged, and nothing run.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.events import PermissionAsked
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.mcp.tools import guard_paths
from jupyter_agent.tools import bash_check
from jupyter_agent.tools.base import CheckFailed, ToolContext
from jupyter_agent.tools.bash import UNREADABLE
from jupyter_agent.tools.protected import Guard


def broken(*_: Any, **__: Any) -> Any:
    raise IndexError("list index out of range")


async def run(runtime: Any, model: Any, tool: str, **args: Any) -> ToolPart:
    model.queue(Reply(tool_calls=[ToolCall(tool, json.dumps(args))]), Reply(text="ok"))
    sid = await runtime.prompt("do it")
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


@pytest.fixture
def failing_bash_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bash_check, "suspects", broken)


async def test_a_failing_bash_check_refuses_headless_with_the_reason(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, failing_bash_check: None, caplog: Any
) -> None:
    caplog.set_level(logging.ERROR, logger="jupyter_agent")
    part = await run(make_runtime(), scripted_model, "bash", command="touch made.txt")
    assert part.state.status == "error"
    error = part.state.error  # type: ignore[union-attr]
    assert UNREADABLE in error and "needs approval" in error
    assert "IndexError" not in error and "list index" not in error
    assert not (tmp_path / "made.txt").exists()
    assert any("touch made.txt" in r.getMessage() and r.exc_info for r in caplog.records)


async def test_a_failing_bash_check_asks_in_a_notebook(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, failing_bash_check: None
) -> None:
    runtime = make_runtime(interactive=True)
    asked: list[Any] = []

    def answer(event: Any) -> None:
        if isinstance(event, PermissionAsked):
            asked.append(event.request)
            runtime.permissions.reply(event.request.id, "once")

    runtime.bus.subscribe(answer)
    part = await run(runtime, scripted_model, "bash", command="touch made.txt")
    assert part.state.status == "completed", part.state
    assert asked[0].permission == "bash" and asked[0].patterns == ["touch made.txt"]
    assert (tmp_path / "made.txt").exists()


async def test_a_plain_bash_allow_runs_what_the_checker_cannot_read(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, failing_bash_check: None
) -> None:
    part = await run(
        make_runtime(permission={"bash": "allow"}), scripted_model, "bash", command="touch made.txt"
    )
    assert part.state.status == "completed", part.state
    assert (tmp_path / "made.txt").exists()


async def test_a_line_nested_too_deep_for_the_checker_is_not_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """Found by trying: 3,000 nested ``$(`` made the walker exceed Python's recursion limit."""
    (tmp_path / "victim.txt").write_text("keep")
    command = "echo " + "$(" * 3000 + "rm -f victim.txt" + ")" * 3000
    part = await run(make_runtime(), scripted_model, "bash", command=command)
    assert part.state.status == "error" and "RecursionError" not in part.state.error  # type: ignore[union-attr]
    assert (tmp_path / "victim.txt").read_text() == "keep"


@pytest.mark.parametrize("tool", ["read", "write", "list"])
async def test_a_failing_path_check_refuses_with_one_line(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tool: str
) -> None:
    (tmp_path / "a.txt").write_text("secret")
    monkeypatch.setattr(Guard, "hides", broken)
    args: dict[str, Any] = {"filePath": "a.txt"} if tool != "list" else {"path": "."}
    if tool == "write":
        args["content"] = "changed"
    part = await run(make_runtime(), scripted_model, tool, **args)
    assert part.state.status == "error" and part.state.metadata.get("rejected")
    error = part.state.error  # type: ignore[union-attr]
    assert error.startswith("Refused: the permission check could not read the path") and "\n" not in error
    assert (tmp_path / "a.txt").read_text() == "secret"


async def test_a_failing_read_rule_withholds_search_results(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.csv").write_text("x")
    monkeypatch.setattr(ToolContext, "rule", broken)
    part = await run(make_runtime(), scripted_model, "glob", pattern="*.csv")
    assert part.state.status == "completed"
    assert "a.csv" not in part.state.output and "1 file was withheld" in part.state.output  # type: ignore[union-attr]


async def test_a_failing_permission_layer_refuses(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = make_runtime()
    monkeypatch.setattr(type(runtime.permissions), "ask", broken)
    part = await run(runtime, scripted_model, "write", filePath="new.txt", content="x")
    assert part.state.status == "error"
    assert part.state.error.startswith("Refused: the permission check could not read")  # type: ignore[union-attr]
    assert not (tmp_path / "new.txt").exists()


async def test_a_failing_mcp_argument_scan_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Guard, "protects", broken)
    ctx = ToolContext("ses", "msg", "call", "build", tmp_path, tmp_path)
    with pytest.raises(CheckFailed, match="could not read the tool's arguments"):
        await guard_paths(ctx, {"path": "notes.txt"}, writes=True)


@pytest.mark.parametrize(
    ("path", "says"),
    [
        ("~nosuchuser/x", "~nosuchuser names no user of this machine"),
        ("a\x00b", "it contains a NUL byte"),
        ("loop/x", "it leads into a symbolic link loop"),
        ("x" * 300, "a name in it is longer than 255 bytes"),
    ],
)
@pytest.mark.parametrize("tool", ["read", "write", "edit", "list", "glob", "grep"])
async def test_a_path_the_tools_cannot_use_is_one_line(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, tool: str, path: str, says: str
) -> None:
    (tmp_path / "loop").symlink_to("loop")
    args: dict[str, Any] = {"filePath": path} if tool in ("read", "write", "edit") else {"path": path}
    args.update({"write": {"content": "x"}, "edit": {"oldString": "a", "newString": "b"}}.get(tool, {}))
    if tool in ("glob", "grep"):
        args["pattern"] = "*"
    part = await run(make_runtime(), scripted_model, tool, **args)
    assert part.state.status == "error"
    assert part.state.error.startswith("Cannot use the path") and says in part.state.error  # type: ignore[union-attr]
