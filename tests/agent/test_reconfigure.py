"""A kernel that re-reads its configuration applies the security keys too: ``protected`` and
``sandbox`` changed in ``jupyter-agent.json`` hold from the next prompt, like the rules."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.agent.compose import build_runtime, reconfigure
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore


def test_protected_paths_and_the_sandbox_follow_a_reread_config(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    config = load_config(project, {"model": "openai/test"}, env={}, global_dir=tmp_path / "g")
    with SqliteStore.for_directory(project) as store:
        runtime = build_runtime(config=config, store=store, project_root=project, working_dir=project)
        shared = runtime.workspace.services
        target = project / "data" / "raw.csv"
        assert shared.guard.protects(target, project, project) is None
        assert shared.sandbox.network
        changed = {"model": "openai/test", "protected": ["data"], "sandbox": {"network": False}}
        reconfigure(runtime, load_config(project, changed, env={}, global_dir=tmp_path / "g"))
        assert shared.guard.protects(target, project, project) is not None
        assert not shared.sandbox.network
