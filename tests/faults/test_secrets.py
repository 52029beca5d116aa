"""API keys never reach the store, the saved tool outputs on disk, or the next request.

A key can arrive three ways: a tool prints it (``env``, a config file), a ``python`` error
message carries it, or a provider error echoes it. Each case scans every byte on disk:
the database, its WAL, and every file under ``tool-output/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from faults_support import assert_kept, first_turn, parts
from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.core.messages import AssistantMessage, ToolPart
from jupyter_agent.storage.paths import db_path

SECRET = "sk-live-0123456789abcdef"


def _files_holding(folder: Path, secret: str) -> list[Path]:
    """Every file of the store folder (database, WAL, saved tool outputs) containing ``secret``."""
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


async def test_printed_keys_never_reach_the_store_or_saved_outputs(
    make_runtime: Any, scripted_server: Any, monkeypatch: Any
) -> None:
    """User sees: [REDACTED:ANTHROPIC_API_KEY] where a tool printed the key, also in the full
    output saved on disk; the key is in no file and no request."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "env; seq 1 3000"}))]),
        Reply(text="printed the environment"),
    )
    await runtime.prompt("show me the environment", session_id=sid)
    runtime.store.flush()
    tool = parts(runtime, sid, ToolPart)[-1]
    saved = Path(tool.state.metadata["output_path"])  # 3000+ lines: the full text was spilled
    assert saved.parent == runtime.store.path.parent / "tool-output"
    assert "[REDACTED:ANTHROPIC_API_KEY]" in saved.read_text()
    assert _files_holding(runtime.store.path.parent, SECRET) == []
    assert SECRET not in json.dumps([r["body"] for r in scripted_server.requests])
    assert_kept(runtime.store.path, before)


@pytest.mark.kernel
def test_key_in_a_python_error_is_redacted(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees: the traceback with [REDACTED:SERVICE_TOKEN]; the key is in no stored field."""
    code = "import os\nprint(os.environ['SERVICE_TOKEN'])\nraise RuntimeError(os.environ['SERVICE_TOKEN'])"
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]),
        Reply(text="the token is hidden"),
    )
    kernel = start_kernel()
    assert kernel.execute(f"import os; os.environ['SERVICE_TOKEN'] = '{SECRET}'").status == "ok"
    assert kernel.execute("%agent --wait what is the token?").status == "ok"
    tool_result = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")
    assert "[REDACTED:SERVICE_TOKEN]" in tool_result["content"]
    assert SECRET not in json.dumps([r["body"] for r in scripted_server.requests])
    kernel.shutdown()  # close the store so the WAL is folded in, then scan every byte
    assert _files_holding(db_path(tmp_path).parent, SECRET) == []


async def test_key_echoed_in_a_provider_error_is_redacted(
    make_runtime: Any, scripted_server: Any, monkeypatch: Any
) -> None:
    """User sees: "retrying" and then the provider's error text, with the key as
    [REDACTED:JUPYTER_AGENT_API_KEY]."""
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", SECRET)
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    echo = f"upstream rejected key {SECRET}"
    scripted_server.queue(
        ErrorReply(status=500, body=echo, headers={"retry-after-ms": "10"}),
        ErrorReply(status=401, body=echo),
    )
    await runtime.prompt("hi", session_id=sid)
    runtime.store.flush()
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "[REDACTED:JUPYTER_AGENT_API_KEY]" in last.error.message
    assert _files_holding(runtime.store.path.parent, SECRET) == []
    assert_kept(runtime.store.path, before)
