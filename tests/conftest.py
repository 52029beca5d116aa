"""Shared fixtures: the no-network guard, offline litellm settings, the scripted server."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
GUARD_DIR = HERE / "netguard"

# Offline settings, before anything imports litellm or tiktoken.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
os.environ["MPLBACKEND"] = "Agg"
os.environ["JUPYTER_AGENT_NETGUARD"] = "1"
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(GUARD_DIR), str(HERE), os.environ.get("PYTHONPATH", "")) if p
)
_spec = importlib.util.find_spec("litellm")
if _spec and _spec.submodule_search_locations:
    _tok = Path(next(iter(_spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    if _tok.is_dir():
        os.environ["TIKTOKEN_CACHE_DIR"] = str(_tok)
for _key in list(os.environ):
    if _key.endswith("_API_KEY") or (
        _key.startswith("JUPYTER_AGENT_") and _key not in ("JUPYTER_AGENT_NETGUARD",)
    ):
        os.environ.pop(_key, None)

import guard  # noqa: E402  (tests/netguard is on sys.path via pyproject pythonpath)

guard.install()

import kernel_harness  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402

from jupyter_agent.agent.compose import build_runtime  # noqa: E402
from jupyter_agent.agent.runtime import Runtime  # noqa: E402
from jupyter_agent.config import load_config  # noqa: E402
from jupyter_agent.storage.sqlite_store import SqliteStore  # noqa: E402


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


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
        runtime = build_runtime(
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


def _env(server: Any, tmp_path: Path, frontend: bool, model: str = "openai/test") -> dict[str, str]:
    env = {
        "JUPYTER_AGENT_MODEL": model,
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_AGENT_NOTEBOOK": str(tmp_path / "analysis.ipynb"),
    }
    if frontend:
        env["JPY_SESSION_NAME"] = str(tmp_path / "analysis.ipynb")
    return env


@pytest.fixture
def start_kernel(tmp_path: Path, scripted_server: Any) -> Iterator[Any]:
    kernels: list[Any] = []

    def start(frontend: bool = False, **kw: Any) -> Any:
        k = kernel_harness.Kernel(tmp_path, _env(scripted_server, tmp_path, frontend, **kw))
        kernels.append(k)
        assert k.execute("%load_ext jupyter_agent").status == "ok"
        return k

    yield start
    for k in kernels:
        k.shutdown()
