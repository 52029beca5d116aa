"""Which session a kernel's first prompt goes to (no kernel process: the choice itself).

A kernel no front end shows (papermill, nbconvert, nbclient) starts a fresh session, so a
re-run does not carry the last run's conversation; ``--continue``, ``--session ID`` and
``"headless_session": "continue"`` keep it; a kernel with a live front end continues, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from scripted_model import ScriptedModel

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.kernel.agent import KernelAgent
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture
def earlier(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder whose notebook has a session from an earlier run."""
    notebook = tmp_path / "report.ipynb"
    agent = _agent(tmp_path, notebook)
    old = agent.runtime.new_session().id
    agent.runtime.store.close()
    yield notebook, old


def _agent(folder: Path, notebook: Path) -> KernelAgent:
    agent = KernelAgent(SimpleNamespace(user_ns={}))
    config = load_config(folder, env={"JUPYTER_AGENT_MODEL": "openai/test"}, global_dir=folder / "none")
    store = SqliteStore.for_directory(folder)
    agent._runtime = build_runtime(
        config=config,
        store=store,
        project_root=folder,
        working_dir=folder,
        notebook_path=str(notebook.resolve()),
        client=ScriptedModel(),
    )
    return agent


def test_a_headless_kernel_starts_fresh_unless_told_to_continue(
    tmp_path: Path, earlier: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook, old = earlier
    monkeypatch.delenv("JUPYTER_AGENT_BACKGROUND", raising=False)
    agent = _agent(tmp_path, notebook)
    assert agent.headless()  # no running loop, no front end: a runner's kernel
    fresh = agent.current_session()
    assert fresh != old and agent.current_session() == fresh  # later prompts stay in it
    assert agent.current_session(cont=True) == fresh  # --continue: the notebook's latest, now this one
    assert agent.current_session(session_id=old) == old  # --session ID
    agent.runtime.store.close()

    # --continue on a kernel's first prompt: the earlier run's session
    agent = _agent(tmp_path, notebook)
    latest = agent.runtime.latest_session()
    assert latest is not None and agent.current_session(cont=True) == latest.id
    agent.runtime.store.close()


def test_the_config_key_and_a_live_front_end_continue(
    tmp_path: Path, earlier: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notebook, old = earlier
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"headless_session": "continue"}))
    agent = _agent(tmp_path, notebook)
    assert agent.headless() and agent.current_session() == old
    agent.runtime.store.close()

    (tmp_path / "jupyter-agent.json").unlink()
    monkeypatch.setenv("JUPYTER_AGENT_BACKGROUND", "1")  # as with a live widget
    agent = _agent(tmp_path, notebook)
    assert not agent.headless() and agent.current_session() == old
    agent.runtime.store.close()
