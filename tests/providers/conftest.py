"""Fixtures for the scripted Anthropic endpoint."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import MODEL, AnthropicServer

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    server = AnthropicServer().start()
    yield server
    server.stop()


@pytest.fixture
def make_claude(
    tmp_path: Path, anthropic_server: AnthropicServer, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """A Runtime on ``anthropic/claude-sonnet-4-5`` whose api_base is the scripted endpoint."""
    made: list[Runtime] = []
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-ant-test")

    def make(options: dict[str, Any] | None = None, **overrides: Any) -> Runtime:
        flags = {"model": MODEL, "api_base": anthropic_server.base_url, **overrides}
        if options is not None:
            flags["models"] = {MODEL: {"options": options}}
        config = load_config(tmp_path, flags, global_dir=tmp_path / "no-global")
        runtime = build_runtime(
            config=config,
            store=SqliteStore.for_directory(tmp_path),
            project_root=tmp_path,
            working_dir=tmp_path,
            generate_titles=False,
        )
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.store.close()
