"""When a kernel re-reads its configuration: a file it read or looked for changed, or a
JUPYTER_AGENT_* variable did; the watched files come from the loader."""

from __future__ import annotations

import json
from pathlib import Path

from jupyter_agent.config import load_config
from jupyter_agent.kernel.config_watch import ConfigWatch


def test_the_loader_names_every_file_it_read_or_looked_for(tmp_path: Path) -> None:
    project = tmp_path / "project"
    notebook_dir = project / "notebooks"
    notebook_dir.mkdir(parents=True)
    (project / "jupyter-agent.json").write_text(json.dumps({"steps": 5}))
    config = load_config(notebook_dir, env={}, global_dir=tmp_path / "global")
    assert config.watched[:3] == [
        tmp_path / "global" / "config.json",  # not there (yet): creating it changes the config
        notebook_dir / "jupyter-agent.json",  # nor this one, nearer than the one read
        project / "jupyter-agent.json",
    ]
    assert tmp_path / "jupyter-agent.json" not in config.watched  # beyond the nearest: never read


def test_changes_name_files_and_variables_never_values(tmp_path: Path) -> None:
    path = tmp_path / "jupyter-agent.json"
    env = {"JUPYTER_AGENT_MODEL": "a", "HOME": "/root", "JUPYTER_AGENT_API_KEY": "sk-secret"}
    watch = ConfigWatch.now([path], env)
    assert watch.changes(env) == []
    path.write_text("{}")  # created
    env2 = {**env, "JUPYTER_AGENT_MODEL": "b", "HOME": "/elsewhere"}
    del env2["JUPYTER_AGENT_API_KEY"]
    changed = watch.changes(env2)
    assert changed == [str(path), "JUPYTER_AGENT_API_KEY", "JUPYTER_AGENT_MODEL"]  # not HOME
    assert not any("sk-secret" in c for c in changed)
    watch = ConfigWatch.now([path], env2)
    path.write_text('{"steps": 1}')  # edited: another size
    assert watch.changes(env2) == [str(path)]
    watch = ConfigWatch.now([path], env2)
    path.unlink()
    assert watch.changes(env2) == [str(path)]
