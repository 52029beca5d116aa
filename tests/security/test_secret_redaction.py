"""Secrets never leave (issue 13 item 5): store, tool-output/, exports, stderr, the model.

The key sits under an arbitrary variable name (``ACME_GATEWAY``, named by ``api_key_env``)
that no "looks secret" rule would catch; a second value hides in ``DB_PASSWORD``; a third
is listed in the ``redact`` config key. The model runs ``env`` and ``cat`` on them.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run_cli
from kernel_harness import Kernel
from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.storage.sqlite_store import SqliteStore

KEY = "zq-" + secrets.token_hex(20)
PASSWORD = "pw-" + secrets.token_hex(12)
LISTED = "codename-" + secrets.token_hex(8)
ALL = (KEY, PASSWORD, LISTED)


def _setup(folder: Path) -> dict[str, str]:
    config = {"api_key_env": "ACME_GATEWAY", "redact": [LISTED]}
    (folder / "jupyter-agent.json").write_text(json.dumps(config))
    (folder / "notes.txt").write_text(f"project codename: {LISTED}\n")
    return {"ACME_GATEWAY": KEY, "DB_PASSWORD": PASSWORD, "JUPYTER_AGENT_API_KEY": ""}


def _files_holding(folder: Path, value: str) -> list[str]:
    """Every file under ``folder`` (the store, its WAL, tool-output/…) whose bytes hold ``value``."""
    found = []
    for root, _, names in os.walk(folder):
        for name in names:
            path = Path(root, name)
            if name not in ("jupyter-agent.json", "notes.txt") and value.encode() in path.read_bytes():
                found.append(str(path.relative_to(folder)))
    return found


def _run(folder: Path, server: Any, env: dict[str, str], prompt: str) -> Any:
    return run_cli(["run", "--model", "openai/test", "--api-base", server.base_url, prompt], folder, **env)


def _session_id(folder: Path) -> str:
    with SqliteStore.for_directory(folder) as store:
        [session] = store.list_sessions(None)
        return session.id


def _sent(server: Any) -> str:
    """Every request body the model received (the Authorization header aside)."""
    return json.dumps([r["body"] for r in server.requests + server.completions])


def test_keys_never_reach_the_store_outputs_exports_stderr_or_the_model(
    tmp_path: Path, scripted_server: Any
) -> None:
    """User sees: "[REDACTED:ACME_GATEWAY]" where ``env`` printed the key, in the answer,
    the saved full output, the export and the request; the key itself nowhere."""
    env = _setup(tmp_path)
    command = "seq 1 3000; env; cat notes.txt"  # over 2000 lines: the full text goes to tool-output/
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]),
        Reply(text="done"),
    )
    run = _run(tmp_path, scripted_server, env, "show env")
    assert run.returncode == 0, run.stderr
    assert scripted_server.requests[0]["headers"].get("authorization") == f"Bearer {KEY}"  # the key was used
    tool_result = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert "ACME_GATEWAY=[REDACTED:ACME_GATEWAY]" in tool_result["content"]
    assert (tmp_path / ".jupyter-agent" / "tool-output").is_dir()
    exported = run_cli(["sessions", "export", "--format", "json", _session_id(tmp_path)], tmp_path, **env)
    assert exported.returncode == 0, exported.stderr
    listed = run_cli(["sessions", "list"], tmp_path, **env)
    for value in ALL:
        assert value not in _sent(scripted_server), value
        assert _files_holding(tmp_path, value) == [], value
        for out in (run.stdout, run.stderr, exported.stdout, exported.stderr, listed.stdout):
            assert value not in out, value


def test_a_provider_error_echoing_the_key_is_redacted(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: "error: … Incorrect API key provided: [REDACTED:ACME_GATEWAY]"."""
    env = _setup(tmp_path)
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}"}}
    scripted_server.queue(ErrorReply(401, json.dumps(echo)))
    run = _run(tmp_path, scripted_server, env, "hi")
    assert run.returncode != 0
    assert "[REDACTED:ACME_GATEWAY]" in run.stderr
    assert KEY not in run.stderr + run.stdout
    assert _files_holding(tmp_path, KEY) == []


def test_a_prompt_that_pastes_a_key_is_stored_and_sent_redacted(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: their own prompt kept, with the key replaced by its name."""
    env = _setup(tmp_path)
    scripted_server.queue(Reply(text="ok"))
    run = _run(tmp_path, scripted_server, env, f"why does {KEY} fail?")
    assert run.returncode == 0, run.stderr
    users = [m["content"] for m in scripted_server.requests[0]["body"]["messages"] if m["role"] == "user"]
    assert users == ["why does [REDACTED:ACME_GATEWAY] fail?"]
    assert _files_holding(tmp_path, KEY) == []


@pytest.mark.kernel
def test_mentions_variables_and_python_output_are_redacted(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: ``%agent … @file:.env @token`` answered; the model, the store and the cell
    got "[REDACTED:ACME_GATEWAY]" for the key in the file, the variable and a python print."""
    env = _setup(tmp_path)
    (tmp_path / ".env").write_text(f"ACME_GATEWAY={KEY}\nDEBUG=1\n")
    code = "import os\nprint('key is', os.environ['ACME_GATEWAY'])"
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]),
        Reply(text="checked"),
    )
    kernel = Kernel(
        tmp_path,
        {
            **env,
            "JUPYTER_AGENT_MODEL": "openai/test",
            "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        },
    )
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        assert kernel.execute("import os; token = os.environ['ACME_GATEWAY']").status == "ok"
        cell = kernel.execute("%agent --wait is the key in @file:.env the same as @token?")
        assert cell.status == "ok", cell.error
        assert KEY not in cell.stdout + cell.stderr
    finally:
        kernel.shutdown()  # the store is closed: the WAL is folded in, every byte on disk
    prompt = next(m for m in scripted_server.requests[0]["body"]["messages"] if m["role"] == "user")
    assert "ACME_GATEWAY=[REDACTED:ACME_GATEWAY]" in json.dumps(prompt)
    tool_result = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert "key is [REDACTED:ACME_GATEWAY]" in tool_result["content"]
    assert KEY not in _sent(scripted_server)
    assert _files_holding(tmp_path, KEY) == [".env"]
