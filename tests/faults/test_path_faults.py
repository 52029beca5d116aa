"""A model reaching outside the project: ``../../etc/passwd``, and symlinks that point out.

The whole path: the model's tool call through the scripted server, the real tools and the
permission manager. Anything outside the project root asks ``external_directory`` first;
a Reject (or a headless run) touches nothing and sends nothing from outside to the model.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from faults_support import assert_kept, first_turn, parts, tool_results
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart

UP_TO_FS_ROOT = "../" * 40
SECRET = "TOPSECRET-outside-the-project"


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("elsewhere")
    (folder / "secret.txt").write_text(SECRET + "\n")
    return folder


def _reject_every_ask(runtime: Any) -> list[Any]:
    """Click Reject on every approval prompt, as a user would; returns what was asked."""
    asked: list[Any] = []

    def answer(event: Any) -> None:
        asked.append(event.request)
        asyncio.get_running_loop().call_soon(runtime.permissions.reply, event.request.id, "reject")

    runtime.bus.subscribe(answer, "permission.asked")
    return asked


def _call(tool: str, **args: Any) -> ToolCall:
    return ToolCall(tool, json.dumps(args))


async def test_path_traversal_asks_and_reject_reads_nothing(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: "Read outside the project: /etc/passwd" with Allow / Reject; after Reject the
    card says the user rejected it, and the model never gets the file."""
    runtime = make_runtime(interactive=True)
    sid, before = await first_turn(runtime, scripted_server)
    asked = _reject_every_ask(runtime)
    scripted_server.queue(
        Reply(tool_calls=[_call("read", filePath=UP_TO_FS_ROOT + "etc/passwd")]),
        Reply(text="I cannot read that."),
    )
    await runtime.prompt("show me the users", session_id=sid)
    assert [(r.permission, r.patterns, r.title) for r in asked] == [
        ("external_directory", ["/etc/*"], "Read outside the project: /etc/passwd")
    ]
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "error" and "rejected" in tool.state.error
    assert tool.state.metadata.get("rejected") is True
    assert "root:" not in json.dumps(scripted_server.requests[-1]["body"])
    assert_kept(runtime.store.path, before)


async def test_path_traversal_headless_is_refused(
    make_runtime: Any, scripted_server: Any, tmp_path: Path, outside: Path
) -> None:
    """User sees (jupyter-agent run, papermill): the card refused with how to allow it in
    jupyter-agent.json; no file is written outside."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    escape = Path(UP_TO_FS_ROOT + str(outside).lstrip("/"))
    scripted_server.queue(
        Reply(
            tool_calls=[
                _call("read", filePath=str(escape / "secret.txt")),
                _call("write", filePath=str(escape / "sub" / "planted.txt"), content="x"),
            ]
        ),
        Reply(text="Both were refused."),
    )
    await runtime.prompt("copy the secret", session_id=sid)
    read, write = parts(runtime, sid, ToolPart)[-2:]
    for tool in (read, write):
        assert tool.state.status == "error"
        assert "not interactive" in tool.state.error and "jupyter-agent.json" in tool.state.error
    assert not (outside / "sub").exists()
    assert SECRET not in json.dumps(scripted_server.requests[-1]["body"])
    assert_kept(runtime.store.path, before)


async def test_symlinks_out_of_the_project_ask_or_are_skipped(
    make_runtime: Any, scripted_server: Any, tmp_path: Path, outside: Path
) -> None:
    """User sees: an approval prompt for every file tool that follows a link out of the project
    (Reject changes nothing); grep and glob over the project skip the links silently."""
    (tmp_path / "link.txt").symlink_to(outside / "secret.txt")
    (tmp_path / "linkdir").symlink_to(outside, target_is_directory=True)
    runtime = make_runtime(interactive=True)
    sid, before = await first_turn(runtime, scripted_server)
    asked = _reject_every_ask(runtime)
    scripted_server.queue(
        Reply(
            tool_calls=[
                _call("read", filePath="link.txt"),
                _call("read", filePath="linkdir/secret.txt"),
                _call("write", filePath="linkdir/new.txt", content="planted"),
                _call("edit", filePath="link.txt", oldString="TOPSECRET", newString="public"),
                _call("list", path="linkdir"),
                _call("grep", pattern="TOPSECRET"),
                _call("glob", pattern="**/secret.txt"),
            ]
        ),
        Reply(text="Nothing outside was touched."),
    )
    await runtime.prompt("look around", session_id=sid)
    assert [(r.permission, r.patterns) for r in asked] == [("external_directory", [f"{outside}/*"])] * 5
    tools = parts(runtime, sid, ToolPart)[-7:]
    assert [t.state.status for t in tools] == ["error"] * 5 + ["completed"] * 2
    grep, glob = tools[-2:]
    assert grep.state.output == "No files found"
    assert "secret.txt" not in glob.state.output
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert SECRET not in json.dumps(scripted_server.requests[-1]["body"])
    assert len(tool_results(scripted_server.requests[-1])) == 1 + 7  # first turn's write + these
    assert_kept(runtime.store.path, before)
