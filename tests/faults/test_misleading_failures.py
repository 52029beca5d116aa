"""Issue 27.8: failures that were reported as something else now say what really happened.

A login proxy's HTML page answered 200 was retried six times as "the answer broke off"; a
user:password api_base refused locally read "The provider failed (500)"; ``--model ""``
created ``sessions.db`` before refusing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cli_runner import run_cli
from faults_support import one_line
from scripted_server import RawReply

PAGE = "<!DOCTYPE html><html><head><title>Sign in - Corp SSO</title></head><body>Login</body></html>"


def test_an_html_page_is_named_at_once(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: 'error: <api_base> answered with an HTML page ("Sign in - Corp SSO"), not a model
    stream: …', exit 1, after one request (no retries)."""
    scripted_server.queue(*[RawReply(PAGE) for _ in range(6)])
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"], tmp_path
    )
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f'error: {scripted_server.base_url} answered with an HTML page ("Sign in - Corp SSO"), not a model '
        "stream: a login page or a proxy stands in between, or api_base points at a web page. Check api_base "
        "(or sign in to the proxy) and run the prompt again."
    ], result.stderr
    assert len(scripted_server.requests) == 1


def test_credentials_in_api_base_are_explained(tmp_path: Path) -> None:
    """User sees what happened (the URL's user:password cannot go with the key), not "500"; the
    password is not printed; no retries."""
    base = "http://someone:hunter2secret@127.0.0.1:9/v1"
    result = run_cli(["run", "--model", "openai/test", "--api-base", base, "hi"], tmp_path)
    assert result.returncode == 1
    assert "api_base holds a user name and password" in result.stderr
    assert "(500)" not in result.stderr and "hunter2secret" not in result.stderr
    assert "retry" not in result.stderr


def test_empty_model_creates_nothing(tmp_path: Path) -> None:
    result = run_cli(["run", "--model", "", "hi"], tmp_path)
    assert result.returncode == 2
    assert one_line(result).startswith("error: --model is empty.")
    assert not (tmp_path / ".jupyter-agent").exists()


def test_no_model_at_all_creates_nothing(tmp_path: Path) -> None:
    result = run_cli(["run", "hi"], tmp_path)
    assert result.returncode == 2
    assert one_line(result).startswith("error: no model is configured")
    assert not (tmp_path / ".jupyter-agent").exists()
