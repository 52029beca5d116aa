"""A Runtime wired to a real SQLite store and the scripted server through litellm."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore


@pytest.fixture
def make_runtime(tmp_path: Path, scripted_server: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    made: list[Runtime] = []
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")

    def make(**overrides: Any) -> Runtime:
        interactive = overrides.pop("interactive", False)
        config = load_config(
            tmp_path,
            {"model": scripted_server.model, "api_base": scripted_server.base_url, **overrides},
            global_dir=tmp_path / "no-global",
        )
        runtime = Runtime(
            config=config,
            store=SqliteStore.for_directory(tmp_path),
            project_root=tmp_path,
            working_dir=tmp_path,
            interactive=interactive,
        )
        runtime.events = []  # type: ignore[attr-defined]
        runtime.bus.subscribe(runtime.events.append)  # type: ignore[attr-defined]
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.store.close()
