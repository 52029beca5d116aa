"""Issue 40 item 1: where each setting comes from (`%agent config`, the panel's settings).

`%agent config` printed raw JSON and one `sources` list: nothing said that the quickstart's
`JUPYTER_AGENT_MODEL` beat the `jupyter-agent.json` the README told the user to write.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from panel_harness import kernel_agent

from jupyter_agent.config import load_config
from jupyter_agent.magics.subcommands import config_table


def _origins(config: Any) -> dict[str, str]:
    return {s.key: s.origin for s in config.show_origin()}


def test_each_key_says_which_source_set_it(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "jupyter-agent" / "config.json"
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"model": "openai/from-file", "api_base": "http://localhost:8000/v1"}))
    project = tmp_path / "proj" / "jupyter-agent.json"
    project.parent.mkdir()
    project.write_text(
        json.dumps({"small_model": "openai/small", "models": {"openai/gpt-4.1": {"limit": {"context": 9}}}})
    )
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"budget": {"session_usd": 5}, "locked": ["budget"]}))
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "JUPYTER_AGENT_MODEL": "anthropic/claude-sonnet-4-5",
        "JUPYTER_AGENT_DISABLE_PRUNE": "1",
    }
    config = load_config(project.parent, {"steps": 7}, env=env, system_file=admin)
    origins = _origins(config)
    assert origins["model"] == "environment ($JUPYTER_AGENT_MODEL)"  # it wins: now it says so
    assert origins["api_base"] == f"user file {user}"
    assert origins["small_model"] == f"project file {project}"
    assert origins["models.openai/gpt-4.1"] == f"project file {project}"  # a name with a dot, one row
    assert origins["compaction.prune"] == "environment ($JUPYTER_AGENT_DISABLE_PRUNE)"
    assert origins["compaction.auto"] == "default" and origins["retries"] == "default"
    assert origins["steps"] == "flag"
    assert origins["budget.session_usd"] == f"admin file {admin}"
    assert next(s for s in config.show_origin() if s.key == "budget.session_usd").locked


def test_agent_config_shows_the_origins_and_the_key(
    tmp_path: Path, scripted_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"model": "openai/from-project"}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("JUPYTER_AGENT_API_BASE", "http://localhost:8000/v1")
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-secret-origin-1234")
    agent = kernel_agent(tmp_path, scripted_model)
    shown = config_table(agent)
    plain = shown["text/plain"]
    line = next(row for row in plain.splitlines() if row.startswith("model "))
    assert "openai/from-project" in line and f"project file {tmp_path / 'jupyter-agent.json'}" in line
    assert "api_base" in plain and "environment ($JUPYTER_AGENT_API_BASE)" in plain
    assert "API key: set (environment $JUPYTER_AGENT_API_KEY)" in plain
    assert "sk-secret-origin-1234" not in plain + shown["text/html"]
    assert "<table>" in shown["text/html"] and "project file" in shown["text/html"]
    only = config_table(agent, "model")["text/plain"]
    assert only.splitlines()[0].startswith("model ") and "api_base" not in only.split("\n\n")[0]


def test_an_untrusted_project_file_is_named_as_not_applied(
    tmp_path: Path, scripted_model: Any, untrusting: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trust (issue 36) and origins together: a project file not trusted yet sets nothing, so
    none of its keys is in the table; the listing says it was left out and how to apply it."""
    project = tmp_path / "jupyter-agent.json"
    project.write_text(json.dumps({"small_model": "openai/from-untrusted"}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    agent = kernel_agent(tmp_path, scripted_model)
    plain = config_table(agent)["text/plain"]
    assert "openai/from-untrusted" not in plain and "project file" not in plain
    assert f"Not applied (not trusted yet): {project}" in plain and "jupyter-agent trust" in plain
