"""Gemini 3 thought signatures on function calls, through litellm's real ``gemini/``
provider to the scripted endpoint: stored on the tool part, sent back with the call.

litellm also folds the signature into the call id (``call_…__thought__<signature>``), which
the store keeps, so the signature survives a restart either way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gemini_server import MODEL, GeminiServer, GReply, signature_for

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture
def gemini() -> Iterator[GeminiServer]:
    server = GeminiServer().start()
    yield server
    server.stop()


def _signatures(body: dict[str, Any]) -> list[Any]:
    return [
        part.get("thoughtSignature") or part.get("thought_signature")
        for content in body.get("contents", [])
        for part in content.get("parts", [])
        if "functionCall" in part or "function_call" in part
    ]


async def test_thought_signature_round_trips(
    gemini: GeminiServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = ("bash", {"command": "echo gemini"})
    gemini.queue(GReply(calls=[call]), GReply(text="It printed gemini."))
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "gemini-test-key")
    config = load_config(
        tmp_path, {"model": MODEL, "api_base": gemini.base_url}, global_dir=tmp_path / "no-global"
    )
    store = SqliteStore.for_directory(tmp_path)
    runtime = build_runtime(
        config=config, store=store, project_root=tmp_path, working_dir=tmp_path, generate_titles=False
    )
    try:
        sid = await runtime.prompt("run echo gemini")
        history = runtime.store.messages(sid)
    finally:
        store.close()
    assert history[-1].info.error is None, history[-1].info
    [tool] = [p for m in history for p in m.parts if isinstance(p, ToolPart)]
    assert tool.state.status == "completed"
    assert tool.provider_metadata == {"thought_signature": signature_for(*call)}
    assert len(gemini.requests) == 2
    assert _signatures(gemini.requests[1]["body"]) == [signature_for(*call)]
    assert all(r["path"].endswith(":streamGenerateContent?alt=sse") for r in gemini.requests)
