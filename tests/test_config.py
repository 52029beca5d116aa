"""Config sources merge in order; bad files name the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_agent.config import ConfigError, load_config


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_precedence_of_all_sources(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _write(
        home / "config.json",
        {"model": "global/m", "small_model": "global/s", "compaction": {"tail_turns": 5, "reserved": 100}},
    )
    project = tmp_path / "proj"
    _write(project / "jupyter-agent.json", {"model": "project/m", "compaction": {"tail_turns": 3}})
    nb_dir = project / "notebooks" / "deep"
    nb_dir.mkdir(parents=True)
    env = {"JUPYTER_AGENT_MODEL": "env/m", "JUPYTER_AGENT_DISABLE_PRUNE": "1"}
    cfg = load_config(nb_dir, {"model": "flag/m"}, env=env, global_dir=home)
    assert cfg.model == "flag/m"
    assert cfg.small_model == "global/s"
    assert cfg.compaction.tail_turns == 3 and cfg.compaction.reserved == 100
    assert cfg.compaction.prune is False and cfg.compaction.auto is True
    assert cfg.sources == [
        "defaults",
        str(home / "config.json"),
        str(project / "jupyter-agent.json"),
        "environment",
        "flags",
    ]
    assert load_config(nb_dir, None, env=env, global_dir=home).model == "env/m"
    assert load_config(nb_dir, None, env={}, global_dir=home).model == "project/m"
    assert load_config(tmp_path, None, env={}, global_dir=home).model == "global/m"
    assert load_config(tmp_path, None, env={}, global_dir=tmp_path / "none").model is None


def test_nearest_project_file_wins(tmp_path: Path) -> None:
    _write(tmp_path / "jupyter-agent.json", {"model": "far"})
    _write(tmp_path / "a" / "jupyter-agent.json", {"model": "near"})
    (tmp_path / "a" / "b").mkdir()
    assert load_config(tmp_path / "a" / "b", env={}, global_dir=tmp_path / "g").model == "near"


def test_env_switches(tmp_path: Path) -> None:
    env = {
        "JUPYTER_AGENT_DISABLE_AUTOCOMPACT": "true",
        "JUPYTER_AGENT_OUTPUT_TOKEN_MAX": "1234",
        "JUPYTER_AGENT_API_BASE": "http://127.0.0.1:9/v1",
    }
    cfg = load_config(tmp_path, env=env, global_dir=tmp_path / "g")
    assert cfg.compaction.auto is False and cfg.output_token_max == 1234
    assert cfg.api_base == "http://127.0.0.1:9/v1"


def test_invalid_file_names_file_and_key(tmp_path: Path) -> None:
    bad = _write(tmp_path / "jupyter-agent.json", {"compaction": {"tail_turns": "many"}})
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={}, global_dir=tmp_path / "g")
    assert str(bad) in str(info.value) and "compaction.tail_turns" in str(info.value)


def test_typo_suggests_the_key(tmp_path: Path) -> None:
    _write(tmp_path / "jupyter-agent.json", {"modle": "x"})
    with pytest.raises(ConfigError, match="did you mean 'model'"):
        load_config(tmp_path, env={}, global_dir=tmp_path / "g")


def test_bad_json_names_line_and_column(tmp_path: Path) -> None:
    (tmp_path / "jupyter-agent.json").write_text('{\n  "model": "x",\n  oops\n}')
    with pytest.raises(ConfigError, match=r"line 3, column 3"):
        load_config(tmp_path, env={}, global_dir=tmp_path / "g")


def test_redacted_never_shows_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    cfg = load_config(tmp_path, {"api_key_env": "MY_KEY"}, env={}, global_dir=tmp_path / "g")
    assert cfg.api_key() == "sk-secret-123"
    shown = json.dumps(cfg.redacted())
    assert "sk-secret-123" not in shown and "MY_KEY" in shown
