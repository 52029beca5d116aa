"""Issue 40 item 2: a model and a key set from the UI (the panel's setup, `jupyter-agent
setup`): tested with a one-token request, saved in the user's own folder (the key 0600 or
the keyring, never the project or the notebook), used by the next prompt without a restart."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from panel_harness import Panel, kernel_agent
from scripted_server import Reply

from jupyter_agent import credentials
from jupyter_agent.agent import setup
from jupyter_agent.agent.setup import COMPATIBLE, Choice, SetupError, save
from jupyter_agent.config import load_config

KEY = "sk-setup-secret-98765"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config folder; the project is another folder."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in (
        "JUPYTER_AGENT_MODEL",
        "JUPYTER_AGENT_API_BASE",
        "JUPYTER_AGENT_API_KEY",
        "ANTHROPIC_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "xdg" / "jupyter-agent"


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()}


def test_save_writes_the_users_folder_only(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = load_config(project)
    said = save(Choice(COMPATIBLE, "served-model", "http://localhost:8000/v1", KEY), config)
    assert KEY not in said and "keys.json" in said
    assert json.loads((home / "config.json").read_text()) == {
        "model": "openai/served-model",
        "api_base": "http://localhost:8000/v1",
    }
    keys = home / "keys.json"
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert json.loads(keys.read_text()) == {"JUPYTER_AGENT_API_KEY": KEY}
    assert _files(project) == set()  # nothing in the project
    again = load_config(project)
    assert again.model == "openai/served-model" and again.api_key() == KEY
    # a hosted provider next: the old server's address must not carry its calls
    save(Choice("anthropic", "claude-sonnet-4-5", "", "sk-ant-1234567890"), again)
    assert json.loads((home / "config.json").read_text()) == {"model": "anthropic/claude-sonnet-4-5"}
    assert credentials.get("ANTHROPIC_API_KEY") == "sk-ant-1234567890"


def test_save_says_what_still_overrides_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_AGENT_MODEL", "anthropic/claude-sonnet-4-5")
    said = save(Choice(COMPATIBLE, "m", "http://localhost:8000/v1"), load_config(tmp_path))
    assert "$JUPYTER_AGENT_MODEL (anthropic/claude-sonnet-4-5) still overrides the model" in said


def test_a_choice_missing_its_parts_is_one_line(home: Path, tmp_path: Path) -> None:
    for bad, said in [
        (Choice(COMPATIBLE, "m", ""), "base URL"),
        (Choice(COMPATIBLE, "m", "localhost:8000"), "not a server address"),
        (Choice("anthropic", " "), "Choose a model"),
    ]:
        with pytest.raises(SetupError, match=said) as caught:
            save(bad, load_config(tmp_path))
        assert "\n" not in str(caught.value)
    assert not (home / "config.json").exists()


async def test_the_connection_test_is_one_token_and_one_line(
    home: Path, tmp_path: Path, scripted_model: Any
) -> None:
    scripted_model.title_reply = Reply(text="OK")
    choice = Choice(COMPATIBLE, "served", "http://localhost:8000/v1", KEY)
    said = await setup.test_connection(scripted_model, choice, load_config(tmp_path))
    assert said == "Connected: openai/served answered “OK”."
    assert scripted_model.completions[-1]["body"]["max_tokens"] == 1

    async def refused(request: Any) -> Any:
        from jupyter_agent.core import provider_errors

        raise provider_errors.from_status(401, "Incorrect API key provided:\n sk-****", "openai/served")

    scripted_model.request = refused
    with pytest.raises(SetupError) as caught:
        await setup.test_connection(scripted_model, choice, load_config(tmp_path))
    said = str(caught.value)
    assert "\n" not in said and ("401" in said or "key" in said.lower()), said


async def test_the_panels_setup_then_the_first_prompt_without_a_restart(
    home: Path, tmp_path: Path, scripted_model: Any
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    scripted_model.title_reply = Reply(text="OK")
    agent = kernel_agent(project, scripted_model, configured=False)
    panel = Panel(agent)
    hello = panel.last("hello")
    assert hello is not None and hello["setup"] and "No model" in hello["problem"]
    panel.request(type="setup", action="providers")
    await panel.settle()
    listed = panel.last("setup")
    assert listed is not None and COMPATIBLE in listed["providers"] and "anthropic" in listed["providers"]
    asked = {"provider": COMPATIBLE, "model": "test", "api_base": "http://localhost:8000/v1", "api_key": KEY}
    panel.request(type="setup", action="test", **asked)
    await panel.settle()
    tested = panel.last("setup")
    assert tested is not None and tested["ok"] and tested["text"] == "Connected: openai/test answered “OK”."
    mark = len(panel.seen)
    panel.request(type="setup", action="save", **asked)
    await panel.settle()
    saved, again = panel.last("setup", mark), panel.last("hello", mark)
    assert saved is not None and saved["ok"] and again is not None
    assert not again.get("setup") and "problem" not in again and again["model"] == "openai/test"
    assert stat.S_IMODE((home / "keys.json").stat().st_mode) == 0o600
    assert all(name.startswith(".jupyter-agent/") for name in _files(project))  # the session store only
    assert not any(KEY.encode() in p.read_bytes() for p in project.rglob("*") if p.is_file())
    assert KEY not in json.dumps(panel.seen)  # never echoed back to the browser
    scripted_model.queue(Reply(text="Hello from the saved model."))
    panel.request(type="prompt", text="hi")
    await panel.settle()
    streamed = "".join(m["text"] for m in panel.all("delta", mark)) + json.dumps(panel.all("part", mark))
    assert "Hello from the saved model." in streamed
    assert scripted_model.requests[-1]["body"]["model"] == "test"  # the saved model, no restart


def test_a_key_file_is_never_readable_by_others(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "keys.json").write_text("{}")
    os.chmod(home / "keys.json", 0o644)  # an old file with a wide mode
    credentials.save("OPENAI_API_KEY", KEY)
    assert stat.S_IMODE((home / "keys.json").stat().st_mode) == 0o600


async def test_a_server_that_never_answers_is_one_line_not_minutes(
    home: Path, tmp_path: Path, scripted_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(setup, "TEST_TIMEOUT_S", 0.2)

    async def silent(request: Any) -> Any:
        await asyncio.sleep(60)

    scripted_model.request = silent
    with pytest.raises(setup.ConnectionFailed, match="did not answer within 0 s") as caught:
        await setup.test_connection(
            scripted_model, Choice(COMPATIBLE, "m", "http://localhost:9/v1"), load_config(tmp_path)
        )
    assert caught.value.exit_code == 1 and "\n" not in str(caught.value)


def test_a_config_folder_that_cannot_be_written_is_one_line(home: Path, tmp_path: Path) -> None:
    home.parent.mkdir(parents=True)
    home.write_text("a file where the folder should be")
    with pytest.raises(SetupError, match="could not write") as caught:
        save(Choice(COMPATIBLE, "m", "http://localhost:8000/v1"), load_config(tmp_path))
    assert "\n" not in str(caught.value)
