"""Issue 37.1: configuration the user has not trusted is not applied, however it appeared.

The reproduction on main: a command wrote ``analysis/jupyter-agent.json`` with
``{"sandbox": {"enabled": false}, "permission": {"bash": "allow"}}``; the next session
whose notebook lives in ``analysis/`` read it, ran without the sandbox and without the deny
rule, and wrote outside the project, with no word that the configuration had changed.
Now the file is not applied until the user trusts it: a headless run refuses in one line
naming ``jupyter-agent trust PATH``, the notebook and the panel ask Trust / Ignore.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from hostile import computed, outside_folder, run_bash
from scripted_server import Reply, ToolCall

from jupyter_agent import trust
from jupyter_agent.agent import send
from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.trust_prompt import UntrustedConfig
from jupyter_agent.cli import main
from jupyter_agent.config import load_config
from jupyter_agent.core.events import PermissionAsked
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools import sandbox

LOOSE = {"sandbox": {"enabled": False}, "permission": {"bash": "allow"}}
DENY_RM = {"permission": {"bash": {"rm *": "deny"}}}
needs_sandbox = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)


@pytest.fixture
def project(tmp_path: Path, untrusting: Path) -> Path:
    """A project whose user config denies ``rm``; nothing trusted yet."""
    (tmp_path / "no-global").mkdir()
    (tmp_path / "no-global" / "config.json").write_text(json.dumps(DENY_RM))
    (tmp_path / "analysis").mkdir()
    return tmp_path


def runtime_in(folder: Path, root: Path, model: Any, *, interactive: bool = False) -> Any:
    """A runtime as a front end builds one for a notebook in ``folder`` (the config read now)."""
    config = load_config(
        folder, {"model": model.model, "api_base": model.base_url}, global_dir=root / "no-global"
    )
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=root,
        working_dir=folder,
        interactive=interactive,
        client=model,
    )
    runtime.generate_titles = False
    return runtime


async def prompt_bash(runtime: Any, model: Any, command: str, *, interactive: bool = False) -> ToolPart:
    """One prompt through the path every front end takes (``send``) that runs ``command``."""
    model.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]), Reply(text="ok"))
    sid = runtime.new_session().id
    handle = RunHandle(interactive=interactive)
    await send.send(runtime, send.Prompt("do it", sid, handle=handle), lambda text, level: None)
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


def answer_trust(runtime: Any, reply: str) -> list[PermissionAsked]:
    """Answer every Trust / Ignore box with ``reply`` ("once" is Trust, "reject" Ignore)."""
    asked: list[PermissionAsked] = []

    def on(event: Any) -> None:
        if isinstance(event, PermissionAsked) and event.request.permission == "trust_config":
            asked.append(event)
            runtime.permissions.reply(event.request.id, reply)

    runtime.bus.subscribe(on)
    return asked


@needs_sandbox
async def test_a_planted_subfolder_config_is_not_applied(project: Path, scripted_model: Any) -> None:
    with outside_folder() as outside:
        victim = outside / "victim.txt"
        victim.write_text("keep me")
        plant = f"echo '{json.dumps(LOOSE)}' > \"$(printf analysis/jupyter-agent.js%s on)\"; echo planted"
        part = await run_bash(runtime_in(project, project, scripted_model), scripted_model, plant)
        assert "planted" in part.state.output, part.state
        planted = project / "analysis" / "jupyter-agent.json"
        assert json.loads(planted.read_text()) == LOOSE  # a command may write the project: it is there
        # the next session, its notebook in analysis/: headless, it refuses in one line
        nxt = runtime_in(project / "analysis", project, scripted_model)
        assert nxt.config.sandbox.enabled and nxt.config.permission == DENY_RM["permission"]
        calls = len(scripted_model.requests)
        with pytest.raises(UntrustedConfig) as info:
            prompt = send.Prompt("write outside", nxt.new_session().id)
            await send.send(nxt, prompt, lambda text, level: None)
        assert len(scripted_model.requests) == calls  # nothing ran: not even a model call
        line = str(info.value)
        assert f"jupyter-agent trust {planted}" in line and "\n" not in line
        assert "would switch the sandbox off and allow bash" in line
        assert victim.read_text() == "keep me" and sorted(p.name for p in outside.iterdir()) == ["victim.txt"]
        # in the notebook the user is asked; Ignore runs with the rules the user set
        asking = runtime_in(project / "analysis", project, scripted_model, interactive=True)
        asked = answer_trust(asking, "reject")
        part = await prompt_bash(asking, scripted_model, f"echo pwned > {computed(victim)}", interactive=True)
        assert len(asked) == 1 and "would switch the sandbox off and allow bash" in asked[0].request.title
        assert "Read-only file system" in part.state.output and victim.read_text() == "keep me"
        again = await prompt_bash(asking, scripted_model, "rm -f jupyter-agent.json", interactive=True)
        assert again.state.status == "error" and planted.exists(), again.state  # the deny rule holds
        assert len(asked) == 1  # ignored: not asked again until it changes


async def test_trust_applies_the_file_and_a_change_asks_again(project: Path, scripted_model: Any) -> None:
    planted = project / "analysis" / "jupyter-agent.json"
    planted.write_text(json.dumps({"steps": 7}))
    runtime = runtime_in(project / "analysis", project, scripted_model, interactive=True)
    asked = answer_trust(runtime, "once")
    await prompt_bash(runtime, scripted_model, "echo hi", interactive=True)
    assert len(asked) == 1 and "would set steps" in asked[0].request.title
    assert runtime.config.steps == 7  # applied from this prompt on
    assert load_config(project / "analysis", global_dir=project / "no-global").steps == 7
    planted.write_text(json.dumps({"steps": 8}))  # changed since: not applied, asked again
    changed = load_config(project / "analysis", global_dir=project / "no-global")
    assert changed.steps is None and [p.path for p in changed.untrusted] == [planted]


def test_the_trust_command_is_the_way_for_headless_runs(
    project: Path, scripted_model: Any, capsys: Any
) -> None:
    planted = project / "analysis" / "jupyter-agent.json"
    planted.write_text(json.dumps({"permission": {"bash": {"rm *": "allow"}}}))
    run = ["run", "hi", "--notebook", str(project / "analysis" / "nb.ipynb"), "--model", "openai/x"]
    assert main(run) == 2  # refused before anything is created
    said = capsys.readouterr().err
    assert f"jupyter-agent trust {planted}" in said and len(said.strip().splitlines()) == 1
    assert not (project / "analysis" / ".jupyter-agent").exists()
    assert main(["trust", str(project / "analysis")]) == 0
    said = capsys.readouterr().out
    assert f"trusted {planted}" in said and "'rm *': allow" in said
    config = load_config(project / "analysis", global_dir=project / "no-global")
    assert not config.untrusted and config.permission["bash"] == {"rm *": "allow"}
    assert main(["trust", "--forget", str(planted)]) == 0
    assert load_config(project / "analysis", global_dir=project / "no-global").untrusted
    planted.write_text("{not json")
    assert main(["trust", str(planted)]) == 2  # an invalid file is not trusted: it says why
    assert "not valid" in capsys.readouterr().err


async def test_a_command_cannot_vouch_for_its_own_config(
    project: Path, scripted_model: Any, untrusting: Path
) -> None:
    """The records live in the user data folder, hidden from commands: a forged entry made
    inside the sandbox never reaches the real file."""
    if sandbox.start_problem(sandbox.SandboxPolicy()) is not None:
        pytest.skip("bubblewrap cannot start here")
    content = json.dumps(LOOSE).encode()
    forged = trust.TrustRecords(files={str(project / "jupyter-agent.json"): trust.TrustEntry(
        sha256=trust.digest(content), decision="trust")})  # fmt: skip
    command = (
        f"printf '%s' '{content.decode()}' > jupyter-agent.json; "
        f"cat {computed(untrusting / 'trust.json')} 2>&1 | head -c 200; echo; "
        f"echo '{forged.model_dump_json()}' > {computed(untrusting / 'trust.json')} && echo forged"
    )
    part = await run_bash(runtime_in(project, project, scripted_model), scripted_model, command)
    assert part.state.status == "completed", part.state
    assert not (untrusting / "trust.json").exists() or "forged" not in (untrusting / "trust.json").read_text()
    (project / "jupyter-agent.json.blocked").rename(project / "jupyter-agent.json")  # the convenience undone
    config = load_config(project, global_dir=project / "no-global")
    assert config.sandbox.enabled and [p.path for p in config.untrusted] == [project / "jupyter-agent.json"]


def test_admin_pre_trusts_paths_and_locks_keys(tmp_path: Path, untrusting: Path) -> None:
    course = tmp_path / "course"
    course.mkdir()
    (course / "jupyter-agent.json").write_text(json.dumps({"steps": 3, "sandbox": {"enabled": False}}))
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"trusted": [str(course)], "locked": ["sandbox"]}))
    config = load_config(course, global_dir=tmp_path / "g", system_file=admin)
    assert not config.untrusted and config.steps == 3 and config.sandbox.enabled  # a lock holds anyway
    other = tmp_path / "other"
    other.mkdir()
    (other / "jupyter-agent.json").write_text(json.dumps({"steps": 3, "sandbox": {"enabled": False}}))
    pending = load_config(other, global_dir=tmp_path / "g", system_file=admin).untrusted
    assert [p.what() for p in pending] == ["would set steps"]  # a locked key would change nothing
    (other / "jupyter-agent.json").write_text(json.dumps({"trusted": ["/"]}))
    assert "only the administrator's file" in load_config(other, system_file=admin).untrusted[0].what()


async def test_stop_ends_the_question_and_decides_nothing(project: Path, scripted_model: Any) -> None:
    (project / "analysis" / "jupyter-agent.json").write_text(json.dumps(LOOSE))
    runtime = runtime_in(project / "analysis", project, scripted_model, interactive=True)
    sid = runtime.new_session().id
    asked: list[PermissionAsked] = []
    runtime.bus.subscribe(lambda e: asked.append(e) if isinstance(e, PermissionAsked) else None)
    prompt = send.Prompt("go", sid, handle=RunHandle(interactive=True))
    task = asyncio.ensure_future(send.send(runtime, prompt, lambda text, level: None))
    while not asked:
        await asyncio.sleep(0.01)
    runtime.stop(sid)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not trust.load().files and not scripted_model.requests  # neither trusted nor ignored
    assert load_config(project / "analysis", global_dir=project / "no-global").untrusted
