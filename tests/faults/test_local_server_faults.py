"""A local model server that is not running, and a hosted model without a key, on the CLI.

A refused connection to a loopback address is final at once (no 37 s of retries), says
which URL and how to start the server; notices about the model come before the request.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import AssistantMessage
from jupyter_agent.providers import litellm_client
from jupyter_agent.storage.sqlite_store import SqliteStore


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_ollama_not_running_fails_fast_with_the_url(tmp_path: Path) -> None:
    """User sees: the unknown-context note, then "Could not reach http://127.0.0.1:N — is the
    server running? (`ollama serve`)"; exit 1; no retries."""
    base = f"http://127.0.0.1:{_closed_port()}"
    result = run_cli(
        ["run", "hi"], tmp_path, JUPYTER_AGENT_MODEL="ollama/qwen2.5-coder", OLLAMA_API_BASE=base
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    expected = f"Could not reach {base} — is the server running? (`ollama serve`)"
    assert expected in result.stderr
    assert "[retry" not in result.stderr
    note = result.stderr.index("does not know the context window of ollama/qwen2.5-coder")
    assert note < result.stderr.index(expected)


def test_default_ollama_address_is_named(tmp_path: Path) -> None:
    """User sees: "Could not reach http://localhost:11434 — …" when nothing listens there."""
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("something listens on the Ollama port here")
    env = {k: v for k, v in os.environ.items() if k != "OLLAMA_API_BASE"}
    env["JUPYTER_AGENT_MODEL"] = "ollama/qwen2.5-coder"
    result = subprocess.run(
        [sys.executable, "-m", "jupyter_agent.cli", "run", "hi"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "Could not reach http://localhost:11434 — is the server running? (`ollama serve`)" in result.stderr


async def test_refused_local_server_fails_within_three_seconds(tmp_path: Path, monkeypatch: Any) -> None:
    """The step ends with the error after one attempt, well under 3 s (OpenAI-compatible too)."""
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")
    base = f"http://localhost:{_closed_port()}/v1"
    config = load_config(tmp_path, {"model": "openai/local", "api_base": base}, global_dir=tmp_path / "none")
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(tmp_path),
        project_root=tmp_path,
        working_dir=tmp_path,
        generate_titles=False,
    )
    litellm_client.warm_up()  # the ~2 s import is not the server's fault
    try:
        started = time.monotonic()
        sid = await runtime.prompt("hi")
        elapsed = time.monotonic() - started
        last = runtime.store.messages(sid)[-1].info
        assert isinstance(last, AssistantMessage) and last.error is not None
        assert last.error.message == f"Could not reach {base} — is the server running?"
        assert not [p for m in runtime.store.messages(sid) for p in m.parts if p.type == "retry"]
        assert elapsed < 15, elapsed  # no backoff: retries would wait 2 + 4 + 8 + 16 s
    finally:
        runtime.store.close()


def test_missing_key_on_the_cli_speaks_of_the_environment(tmp_path: Path) -> None:
    """User sees: "set the environment variable ANTHROPIC_API_KEY … jupyter-agent.json", not %env."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = subprocess.run(
        [sys.executable, "-m", "jupyter_agent.cli", "run", "--model", "anthropic/claude-sonnet-4-5", "hi"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "environment variable ANTHROPIC_API_KEY" in result.stderr
    assert "jupyter-agent.json" in result.stderr
    assert "%env" not in result.stderr and "kernel" not in result.stderr
