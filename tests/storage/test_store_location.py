"""Where the store lives: next to the notebooks, in the folder `store` names (keyed by the
notebook folder's path), or in the user data folder when the notebook folder is read-only;
wherever it is, tools and the sandbox protect it as they protect `.jupyter-agent/`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.agent.compose import build_runtime, reconfigure
from jupyter_agent.config import ConfigError, load_config
from jupyter_agent.storage import location
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.base import ToolContext
from jupyter_agent.tools.sandbox import Layout, SandboxPolicy


def _env(tmp_path: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"), **more}


def test_default_is_next_to_the_notebooks(tmp_path: Path) -> None:
    where = location.locate(tmp_path / "nb", env=_env(tmp_path))
    assert where.folder == (tmp_path / "nb").resolve() / ".jupyter-agent" and where.notice is None


def test_a_configured_store_keys_each_notebook_folder_by_its_path(tmp_path: Path) -> None:
    one, two = tmp_path / "course" / "week1", tmp_path / "other" / "week1"
    for folder in (one, two):
        folder.mkdir(parents=True)
    shared = tmp_path / "shared"
    first = SqliteStore.for_directory(one, str(shared))
    second = SqliteStore.for_directory(two, str(shared))
    assert first.path.parent.parent == shared == second.path.parent.parent
    assert first.path != second.path  # same folder name, different paths: two stores
    assert first.path.parent.name.startswith("course-week1-")
    assert (first.path.parent / "notebook-folder.txt").read_text().strip() == str(one.resolve())
    assert (first.path.parent / ".gitignore").read_text() == "*\n"
    assert not (one / ".jupyter-agent").exists()
    again = SqliteStore.for_directory(one, str(shared))  # the same key next time
    assert again.path == first.path
    for store in (first, second, again):
        store.close()


def test_a_read_only_folder_falls_back_to_the_user_data_folder_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    folder.mkdir()
    env = _env(tmp_path)
    where = location.locate(folder, env=env, writable=lambda _: False)
    assert where.folder.parent == tmp_path / "data" / "jupyter-agent" / "stores"
    assert where.notice and str(folder.resolve()) in where.notice and str(where.folder) in where.notice
    store = SqliteStore.at(where, folder)
    assert store.notice == where.notice and store.path.parent == where.folder
    store.close()
    # once it holds sessions it stays the folder's store, also when the folder is writable again
    kept = location.locate(folder, env=env)
    assert kept.folder == where.folder and kept.notice is None
    assert location.candidates(folder, env=env)[0] == where.folder
    assert folder.resolve() / ".jupyter-agent" in location.candidates(folder, env=env)


def test_store_setting_env_and_checks(tmp_path: Path) -> None:
    env = {"JUPYTER_AGENT_STORE": str(tmp_path / "s")}
    assert load_config(tmp_path, env=env, global_dir=tmp_path / "g").store == str(tmp_path / "s")
    with pytest.raises(ConfigError, match="JUPYTER_AGENT_STORE: 'relative/x' is not an absolute folder"):
        load_config(tmp_path, env={"JUPYTER_AGENT_STORE": "relative/x"}, global_dir=tmp_path / "g")
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"store": "here"}))
    with pytest.raises(ConfigError, match=r"jupyter-agent.json: store: 'here' is not an absolute folder"):
        load_config(tmp_path, env={}, global_dir=tmp_path / "g")


def test_the_admin_can_lock_the_store(tmp_path: Path) -> None:
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"store": "/srv/agent", "locked": ["store"]}))
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"store": str(tmp_path / "mine")}))
    config = load_config(
        tmp_path, env={"JUPYTER_AGENT_STORE": "/elsewhere"}, global_dir=tmp_path / "g", system_file=admin
    )
    assert config.store == "/srv/agent"
    assert "store (from environment)" in config.notices[0] and "store (from " in config.notices[0]


def test_a_store_kept_elsewhere_is_protected_like_jupyter_agent(tmp_path: Path, scripted_model: Any) -> None:
    """Writes to it always ask; inside the sandbox it is read-only even in a writable folder
    (the temp folder here); reading a truncated output saved there is not "outside the project"."""
    project = tmp_path / "project"
    project.mkdir()
    shared = Path(tmp_path / "tmp-store")
    store = SqliteStore.for_directory(project, str(shared))
    config = load_config(project, {"model": "m", "store": str(shared)}, env={}, global_dir=tmp_path / "g")
    runtime = build_runtime(
        config=config, store=store, project_root=project, working_dir=project, client=scripted_model
    )
    services = runtime.workspace.services
    folder = store.path.parent
    assert services.guard.protects(folder / "sessions.db", project, project) == "the session store"
    assert services.guard.protects(shared / "another-store" / "x", project, project) == "the session store"
    policy = SandboxPolicy(writable=(shared,))  # as if the store were in a folder commands may write
    layout = Layout.plan(project, project, policy.writable, services.guard, {"HOME": str(tmp_path / "home")})
    assert shared.resolve() in layout.read_only or folder.resolve() in layout.read_only, layout
    ctx = ToolContext("s", "m", "c", "build", project, project, services=services)
    assert not ctx.is_external(services.outputs / "tool_123")
    assert ctx.is_external(tmp_path / "elsewhere.txt")
    store.close()


def test_a_changed_store_setting_is_told_and_the_open_store_kept(tmp_path: Path, scripted_model: Any) -> None:
    config = load_config(tmp_path, {"model": "m"}, env={}, global_dir=tmp_path / "g")
    store = SqliteStore.for_directory(tmp_path)
    runtime = build_runtime(
        config=config, store=store, project_root=tmp_path, working_dir=tmp_path, client=scripted_model
    )
    moved = load_config(
        tmp_path, {"model": "m", "store": str(tmp_path / "s")}, env={}, global_dir=tmp_path / "g"
    )
    reconfigure(runtime, moved)
    assert runtime.store_path == store.path
    assert any("`store` changed" in n and "restarts" in n for n in runtime.notices)
    store.close()


def test_a_cloned_project_cannot_choose_where_sessions_and_the_audit_trail_go(tmp_path: Path) -> None:
    """A `jupyter-agent.json` in a repository could send transcripts to a shared folder, or
    audit lines (arguments the model wrote) into a folder a shell sources: both are ignored
    there, with a notice; the user's own file may set `store`, only the admin's `audit`."""
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"store": "/tmp/shared", "audit": "~/.bashrc.d"}))
    home = tmp_path / "home-config"
    home.mkdir()
    (home / "config.json").write_text(json.dumps({"store": str(tmp_path / "mine"), "audit": "/tmp/a"}))
    config = load_config(tmp_path, env={}, global_dir=home)
    assert config.store == str(tmp_path / "mine") and config.audit is None
    project_note, user_note = sorted(config.notices, key=lambda n: "home-config" in n)
    assert "Ignored store, audit in" in project_note and "jupyter-agent.json" in project_note
    assert "Ignored audit in" in user_note
