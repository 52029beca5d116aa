"""Issue 13.6: an imported (or tampered) session cannot make revert write outside the project."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.revert import RevertError, revert, unrevert
from jupyter_agent.core.messages import PatchPart


async def _session_that_wrote(make_runtime: Any, scripted_server: Any, **overrides: Any) -> tuple[Any, str]:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("write", json.dumps({"filePath": "notes.txt", "content": "mine\n"}))]),
        Reply(text="written"),
    )
    runtime = make_runtime(**overrides)
    sid = await runtime.prompt("write notes")
    return runtime, sid


def _outside(tmp_path: Path) -> Path:
    folder = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    folder.mkdir(exist_ok=True)
    return folder / "victim.txt"


async def test_crafted_export_cannot_write_outside_on_revert(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    runtime, sid = await _session_that_wrote(make_runtime, scripted_server)
    runtime.store.flush()
    export = tmp_path / "s.json"
    assert run_cli(["sessions", "export", sid, "--output", str(export)], tmp_path).returncode == 0
    victim = _outside(tmp_path)
    data = json.loads(export.read_text())
    for m in data["messages"]:
        for p in m["parts"]:
            for change in p.get("files", []):
                change.update(path=str(victim), before="attacker text\n")
    export.write_text(json.dumps(data))

    imported = run_cli(["sessions", "import", str(export)], tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert str(victim) in imported.stderr and "left out" in imported.stderr
    new_id = imported.stdout.split()[2].rstrip(":")
    reverted = run_cli(["sessions", "revert", new_id], tmp_path)
    assert reverted.returncode == 0, reverted.stderr
    assert not victim.exists()


@pytest.mark.parametrize("via_link", [False, True])
async def test_revert_refuses_stored_paths_outside_before_writing(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, via_link: bool
) -> None:
    runtime, sid = await _session_that_wrote(make_runtime, scripted_model)
    victim = _outside(tmp_path)
    if via_link:
        (tmp_path / "link").symlink_to(victim.parent)
        target = tmp_path / "link" / victim.name
    else:
        target = victim
    history = runtime.store.messages(sid)
    patch = next(p for m in history for p in m.parts if isinstance(p, PatchPart))
    extra = patch.files[0].model_copy(update={"path": str(target), "before": "attacker text\n"})
    runtime.store.update_part(patch.model_copy(update={"files": [*patch.files, extra]}))
    with pytest.raises(RevertError, match="outside the project") as refused:
        revert(runtime.sessions, sid)
    assert "external_directory" in str(refused.value)
    assert not victim.exists()
    assert (tmp_path / "notes.txt").read_text() == "mine\n"  # nothing at all was changed
    assert runtime.store.get_session(sid).revert is None


async def test_an_allow_rule_lets_revert_write_there(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    victim = _outside(tmp_path)
    rules = {"external_directory": {str(victim.parent / "*"): "allow"}}
    runtime, sid = await _session_that_wrote(make_runtime, scripted_model, permission=rules)
    history = runtime.store.messages(sid)
    patch = next(p for m in history for p in m.parts if isinstance(p, PatchPart))
    extra = patch.files[0].model_copy(update={"path": str(victim), "before": "restored\n"})
    runtime.store.update_part(patch.model_copy(update={"files": [*patch.files, extra]}))
    revert(runtime.sessions, sid)
    assert victim.read_text() == "restored\n" and not (tmp_path / "notes.txt").exists()
    unrevert(runtime.sessions, sid)
    assert not victim.exists() and (tmp_path / "notes.txt").read_text() == "mine\n"


async def test_unrevert_checks_the_snapshot_too(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    runtime, sid = await _session_that_wrote(make_runtime, scripted_model)
    revert(runtime.sessions, sid)
    session = runtime.store.get_session(sid)
    victim = _outside(tmp_path)
    snapshot = {str(victim): {"content": "attacker text\n", "binary": False}}
    assert session.revert is not None
    state = session.revert.model_copy(update={"snapshot": json.dumps(snapshot)})
    runtime.store.update_session(session.model_copy(update={"revert": state}))
    with pytest.raises(RevertError, match="outside the project"):
        unrevert(runtime.sessions, sid)
    assert not victim.exists()
