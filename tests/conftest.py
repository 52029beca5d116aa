"""Shared fixtures: the no-network guard, offline litellm settings, the scripted models,
and the ``slow`` marker for tests that start kernels, browsers, servers or processes."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
GUARD_DIR = HERE / "netguard"

# pytest keeps the assert-rewritten test modules only where bytecode may be written; with
# PYTHONDONTWRITEBYTECODE set it rewrote every test module on every run (most of collection).
# This process may cache them (in the ignored __pycache__ folders); child processes keep the setting.
sys.dont_write_bytecode = False

# Offline settings, before anything imports litellm or tiktoken.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["JUPYTER_PLATFORM_DIRS"] = "1"
os.environ["MPLBACKEND"] = "Agg"
os.environ["JUPYTER_AGENT_NETGUARD"] = "1"
# a key saved by the setup goes to keys.json under the test's own folder, never to a keyring
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
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
from scripted_model import ScriptedModel  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402

from jupyter_agent import trust  # noqa: E402
from jupyter_agent.agent.compose import build_runtime  # noqa: E402
from jupyter_agent.agent.runtime import Runtime  # noqa: E402
from jupyter_agent.config import load_config  # noqa: E402
from jupyter_agent.storage.sqlite_store import SqliteStore  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def trusted_test_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Tests write configuration files as a user does by hand, and a user trusts such a file
    once (``jupyter-agent trust``, docs/security.md). Here the run's own user data folder
    trusts the run's temporary folders as a whole (``jupyter-agent trust --folder``), so the
    tests of what a file sets need not; the tests of trust itself use ``untrusting``."""
    data = tmp_path_factory.mktemp("agent-data")
    os.environ["JUPYTER_AGENT_DATA_DIR"] = str(data)  # kernels and CLI runs started later inherit it
    trust.trust_folder(tmp_path_factory.getbasetemp())
    trust.trust_folder(Path("/var/tmp/ja-outside-*"))
    yield data


@pytest.fixture
def untrusting(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user data folder of its own that trusts nothing yet (a user's first day)."""
    data = tmp_path_factory.mktemp("fresh-data")
    monkeypatch.setenv("JUPYTER_AGENT_DATA_DIR", str(data))
    return data


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()


@pytest.fixture
def scripted_model() -> ScriptedModel:
    """The in-process scripted model (fast tier): the loop's ModelClient without HTTP."""
    return ScriptedModel()


@pytest.fixture
def make_runtime(
    tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Any]:
    """Runtimes over a temporary folder, talking to the model the test asked for:
    ``scripted_server`` (real HTTP through litellm) or else ``scripted_model`` (in process)."""
    made: list[Runtime] = []
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")
    http = "scripted_server" in request.fixturenames
    model = request.getfixturevalue("scripted_server" if http else "scripted_model")

    def make(**overrides: Any) -> Runtime:
        interactive = overrides.pop("interactive", False)
        config = load_config(
            tmp_path,
            {"model": model.model, "api_base": model.base_url, **overrides},
            global_dir=tmp_path / "no-global",
        )
        runtime = build_runtime(
            config=config,
            store=SqliteStore.for_directory(tmp_path),
            project_root=tmp_path,
            working_dir=tmp_path,
            interactive=interactive,
            client=None if http else model,
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


SLOW_FIXTURES = frozenset(
    {
        "scripted_server",  # real HTTP, and litellm behind it
        "anthropic_server",
        "claude",
        "start_kernel",
        "shell",  # a kernel for the python/notebook tools
        "chromium",
        "http_server",  # an MCP server
        "proxy",  # a LiteLLM proxy
        "upstream",
    }
)
"""Fixtures that start something real and slow."""
SLOW_MARKERS = ("kernel", "browser")
SLOW_CALLS = frozenset({"run_cli", "Kernel", "subprocess", "Popen"})
"""Names that start a process (the CLI, a kernel), looked up in the test's code and in the
test-suite helpers it calls."""


def _calls(fn: Any, depth: int = 3) -> set[str]:
    """Global names a test function uses, following helpers defined in tests/ a few levels."""
    code = getattr(fn, "__code__", None)
    if code is None or depth == 0:
        return set()
    names = set(code.co_names)
    for const in code.co_consts:  # nested functions and lambdas
        if hasattr(const, "co_names"):
            names |= set(const.co_names)
    found = set(names)
    scope = getattr(fn, "__globals__", {})
    for name in names:
        helper = scope.get(name)
        path = getattr(getattr(helper, "__code__", None), "co_filename", "")
        if path.startswith(str(HERE)) and helper is not fn:
            found |= _calls(helper, depth - 1)
    return found


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` every test that uses something slow, so ``pytest -m "not slow"`` is the
    fast tier (the loop with the in-process scripted model, pure logic, SQLite, tools)."""
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if (
            names & SLOW_FIXTURES
            or _calls(getattr(item, "function", None)) & SLOW_CALLS
            or any(item.get_closest_marker(m) for m in SLOW_MARKERS)
        ):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def mcp_runtime(make_runtime: Any) -> Iterator[Any]:
    """``make_runtime`` whose MCP servers are stopped at the end of the test."""
    made: list[Any] = []

    def make(**overrides: Any) -> Any:
        runtime = make_runtime(**overrides)
        runtime.generate_titles = False
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        manager = runtime.services.mcp
        if manager is not None:
            manager.close()
