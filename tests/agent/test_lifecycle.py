"""Fork, revert/unrevert, export/import through the real store, the loop and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from cli_runner import run_cli
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.revert import RevertError, revert, unrevert
from jupyter_agent.core.messages import AssistantMessage, CompactionPart, UserMessage


def _strip(messages: list[Any]) -> list[Any]:
    """Messages without ids, for comparing a copy with its original."""
    out = []
    for m in messages:
        info = m.info.model_dump(exclude={"id", "session_id", "parent_id", "time"})
        parts = [p.model_dump(exclude={"id", "session_id", "message_id"}) for p in m.parts]
        out.append((info, parts))
    return out


async def _two_turns(make_runtime: Any, scripted_server: Any) -> tuple[Any, str]:
    scripted_server.queue(Reply(text="answer one"), Reply(text="answer two"))
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    await runtime.prompt("question two", session_id=sid)
    return runtime, sid


async def test_fork_copies_before_a_message(make_runtime: Any, scripted_model: Any) -> None:
    runtime, sid = await _two_turns(make_runtime, scripted_model)
    history = runtime.store.messages(sid)
    second_user = [m.info.id for m in history if isinstance(m.info, UserMessage)][1]
    fork = runtime.fork(sid, second_user)
    copied = runtime.store.messages(fork.id)
    assert _strip(copied) == _strip(history[:2])
    assert copied[1].info.parent_id == copied[0].info.id  # parent links remapped
    assert fork.title.endswith("(fork #1)") and runtime.fork(sid).title.endswith("(fork #2)")
    assert len(runtime.store.messages(sid)) == 4  # the original is untouched


async def test_revert_restores_a_file_edited_three_times(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    target = tmp_path / "data.csv"
    original = b"a,b\n1,2\n\xc3\xa9t\xc3\xa9\n"
    target.write_bytes(original)
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "data.csv", "content": "x\n"}))]),
        Reply(
            tool_calls=[
                ToolCall("edit", json.dumps({"filePath": "data.csv", "oldString": "x", "newString": "y"}))
            ]
        ),
        Reply(
            tool_calls=[
                ToolCall("edit", json.dumps({"filePath": "data.csv", "oldString": "y", "newString": "z"}))
            ]
        ),
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "new.txt", "content": "new"}))]),
        Reply(text="edited"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("edit the data")
    assert target.read_text() == "z\n" and (tmp_path / "new.txt").exists()
    revert(runtime.sessions, sid)
    assert target.read_bytes() == original and not (tmp_path / "new.txt").exists()
    assert runtime.recorder(sid).history() == []  # hidden at once
    unrevert(runtime.sessions, sid)
    assert target.read_text() == "z\n" and (tmp_path / "new.txt").read_text() == "new"
    assert len(runtime.recorder(sid).history()) == 6
    revert(runtime.sessions, sid)
    scripted_model.queue(Reply(text="fresh start"))
    await runtime.prompt("something else", session_id=sid)  # the next prompt makes it final
    users = [m for m in runtime.store.messages(sid) if isinstance(m.info, UserMessage)]
    assert len(users) == 1 and runtime.store.get_session(sid).revert is None
    with pytest.raises(RevertError, match="Nothing to unrevert"):
        unrevert(runtime.sessions, sid)


async def test_revert_across_compaction_is_refused(make_runtime: Any, scripted_model: Any) -> None:
    runtime, sid = await _two_turns(make_runtime, scripted_model)
    first_user = runtime.store.messages(sid)[0].info.id
    scripted_model.queue(Reply(text="## Goal\nsummary"))
    await runtime.compact(sid)
    assert any(isinstance(p, CompactionPart) for m in runtime.store.messages(sid) for p in m.parts)
    with pytest.raises(RevertError, match="across a compaction"):
        revert(runtime.sessions, sid, first_user)


async def test_export_import_round_trip(make_runtime: Any, scripted_server: Any, tmp_path: Path) -> None:
    runtime, sid = await _two_turns(make_runtime, scripted_server)
    out = tmp_path / "s.json"
    assert run_cli(["sessions", "export", sid, "--output", str(out)], tmp_path).returncode == 0
    result = run_cli(["sessions", "import", str(out)], tmp_path)
    assert result.returncode == 0, result.stderr
    new_id = result.stdout.split()[2].rstrip(":")
    runtime.store.flush()
    from jupyter_agent.storage.sqlite_store import SqliteStore

    store = SqliteStore.for_directory(tmp_path)
    assert _strip(store.messages(new_id)) == _strip(store.messages(sid))
    md = run_cli(["sessions", "export", sid, "--format", "md"], tmp_path)
    assert "### User\n\nquestion one" in md.stdout and "answer two" in md.stdout
    nb_path = tmp_path / "record.ipynb"
    assert (
        run_cli(
            ["sessions", "export", sid, "--format", "ipynb", "--output", str(nb_path)], tmp_path
        ).returncode
        == 0
    )
    cells = nbformat.read(nb_path, as_version=4).cells
    assert cells[0].cell_type == "markdown" and "answer one" in cells[2].source
    fork = run_cli(["sessions", "fork", sid], tmp_path)
    assert fork.returncode == 0 and "(fork #1)" in fork.stdout
    missing = run_cli(["sessions", "export", sid[:-2] + "zz"], tmp_path)
    assert missing.returncode == 2 and sid in missing.stderr  # close match offered
    assert isinstance(store.messages(sid)[-1].info, AssistantMessage)
    store.close()
