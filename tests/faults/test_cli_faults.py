"""Broken settings and bad arguments on the ``jupyter-agent`` command: one line, no traceback.

Each case runs the real command in a subprocess, as a user would, and checks the one line
it prints (naming the file, what is wrong, what to do), the exit code (0 done, 1 failed,
2 usage or configuration) and that ``--debug`` brings the traceback back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from faults_support import BAD_CONFIGS

from jupyter_agent.core.messages import Session
from jupyter_agent.storage.sqlite_store import SqliteStore


def _one_line(result: Any) -> str:
    """The single message line on stderr; fails when there is a traceback or more."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_broken_config_file_is_one_line(tmp_path: Path, case: str) -> None:
    """User sees: `<folder>/jupyter-agent.json: <what is wrong>` and exit code 2."""
    data, expected = BAD_CONFIGS[case]
    (tmp_path / "jupyter-agent.json").write_bytes(data)
    result = run_cli(["run", "--model", "openai/test", "hi"], tmp_path)
    line = _one_line(result)
    assert result.returncode == 2
    assert line.startswith(f"error: {tmp_path / 'jupyter-agent.json'}: ")
    assert expected in line
    listing = run_cli(["sessions", "list"], tmp_path)
    assert listing.returncode == 2 and expected in _one_line(listing)


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    """User sees (with --debug or JUPYTER_AGENT_DEBUG=1): the full traceback, same exit code."""
    (tmp_path / "jupyter-agent.json").write_text('{"model": ')
    for result in (
        run_cli(["--debug", "sessions", "list"], tmp_path),
        run_cli(["sessions", "list"], tmp_path, JUPYTER_AGENT_DEBUG="1"),
    ):
        assert result.returncode == 2
        assert "Traceback" in result.stderr and "ConfigError" in result.stderr


def test_bad_environment_value_is_one_line(tmp_path: Path) -> None:
    """User sees: "JUPYTER_AGENT_OUTPUT_TOKEN_MAX must be a positive integer, got 'abc'", exit 2."""
    result = run_cli(["run", "--model", "openai/test", "hi"], tmp_path, JUPYTER_AGENT_OUTPUT_TOKEN_MAX="abc")
    assert result.returncode == 2
    assert "JUPYTER_AGENT_OUTPUT_TOKEN_MAX must be a positive integer, got 'abc'" in _one_line(result)


def test_compact_without_a_model_explains(tmp_path: Path) -> None:
    """User sees: how to configure a model (as `run` says it), exit 2, no traceback."""
    with SqliteStore.for_directory(tmp_path) as store:
        store.create_session(Session(id="ses_1"))
    for args in (["compact"], ["run", "hi"]):
        result = run_cli(args, tmp_path)
        assert result.returncode == 2, result.stderr
        line = _one_line(result)
        assert line.startswith("error: no model is configured: pass --model"), line
        assert "JUPYTER_AGENT_MODEL" in line and "jupyter-agent.json" in line and "%agent" not in line


def test_import_of_a_missing_file(tmp_path: Path) -> None:
    """User sees: "error: missing.json: no such file …", exit 2."""
    result = run_cli(["sessions", "import", "missing.json"], tmp_path)
    line = _one_line(result)
    assert result.returncode == 2
    assert "missing.json" in line and "no such file" in line.lower()


def test_import_of_a_file_that_is_not_an_export(tmp_path: Path) -> None:
    """User sees: the file is not a jupyter-agent session export, exit 2."""
    (tmp_path / "other.json").write_text('{"hello": 1}')
    result = run_cli(["sessions", "import", "other.json"], tmp_path)
    line = _one_line(result)
    assert result.returncode == 2
    assert "other.json" in line and "not a jupyter-agent session export" in line


def test_export_to_a_folder(tmp_path: Path) -> None:
    """User sees: "--output .: is a folder; give a file name …", exit 2, nothing written."""
    with SqliteStore.for_directory(tmp_path) as store:
        store.create_session(Session(id="ses_1", title="keep"))
    result = run_cli(["sessions", "export", "ses_1", "--output", "."], tmp_path)
    line = _one_line(result)
    assert result.returncode == 2
    assert "is a folder" in line and "file name" in line


def test_unknown_session_is_one_line_before_anything_else(tmp_path: Path) -> None:
    """User sees: "No session 'nope' in …/sessions.db." and nothing else (no model notes), exit 2."""
    result = run_cli(
        ["run", "--session", "nope", "--model", "openai/x", "--api-base", "http://127.0.0.1:9", "hi"],
        tmp_path,
    )
    assert result.returncode == 2
    assert _one_line(result) == f"error: No session 'nope' in {tmp_path / '.jupyter-agent' / 'sessions.db'}."
