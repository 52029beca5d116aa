"""Issue 13.12: bad values are refused with a message naming the key or flag; nothing is created."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli

from jupyter_agent.config import ConfigError, load_config


def _run(tmp_path: Path, server: Any, *extra: str, prompt: str = "hi", **env: str) -> Any:
    args = ["run", "--model", "openai/test", "--api-base", server.base_url, *extra, prompt]
    return run_cli(args, tmp_path, **env)


def _nothing_created(tmp_path: Path, server: Any) -> None:
    assert not (tmp_path / ".jupyter-agent").exists()
    assert server.requests == []


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"tool_output": {"max_lines": 0}}, "tool_output.max_lines"),
        ({"tool_output": {"max_bytes": -1}}, "tool_output.max_bytes"),
        ({"steps": 0}, "steps"),
        ({"agent": {"build": {"steps": -3}}}, "agent.build.steps"),
    ],
)
def test_bad_config_values_are_refused(tmp_path: Path, scripted_server: Any, config: Any, named: str) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    result = _run(tmp_path, scripted_server)
    assert result.returncode == 2, result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    _nothing_created(tmp_path, scripted_server)


def test_negative_output_token_max_env_is_refused(tmp_path: Path, scripted_server: Any) -> None:
    result = _run(tmp_path, scripted_server, JUPYTER_AGENT_OUTPUT_TOKEN_MAX="-1")
    assert result.returncode == 2, result.stderr
    assert "JUPYTER_AGENT_OUTPUT_TOKEN_MAX" in result.stderr and "Traceback" not in result.stderr
    _nothing_created(tmp_path, scripted_server)


def test_config_loader_names_the_env_var(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="JUPYTER_AGENT_OUTPUT_TOKEN_MAX"):
        load_config(tmp_path, env={"JUPYTER_AGENT_OUTPUT_TOKEN_MAX": "0"}, global_dir=tmp_path / "g")


@pytest.mark.parametrize("prompt", ["", "   ", "\n\t "])
def test_empty_prompt_is_refused(tmp_path: Path, scripted_server: Any, prompt: str) -> None:
    result = _run(tmp_path, scripted_server, prompt=prompt)
    assert result.returncode == 2, result.stderr
    assert "prompt is empty" in result.stderr
    _nothing_created(tmp_path, scripted_server)


def test_hidden_agent_is_refused(tmp_path: Path, scripted_server: Any) -> None:
    result = _run(tmp_path, scripted_server, "--agent", "compaction")
    assert result.returncode == 2, result.stderr
    assert "--agent compaction" in result.stderr and "build" in result.stderr
    _nothing_created(tmp_path, scripted_server)


def test_notebook_in_missing_folder_is_refused(tmp_path: Path, scripted_server: Any) -> None:
    result = _run(tmp_path, scripted_server, "--notebook", "nowhere/deeper/a.ipynb")
    assert result.returncode == 2, result.stderr
    assert "--notebook" in result.stderr and "does not exist" in result.stderr
    _nothing_created(tmp_path, scripted_server)
    assert not (tmp_path / "nowhere").exists()


async def test_runtime_refuses_hidden_agents_before_creating_a_session(make_runtime: Any) -> None:
    runtime = make_runtime()
    with pytest.raises(KeyError, match="internal agent"):
        await runtime.prompt("summarise", agent="title")
    assert runtime.sessions.list() == []
