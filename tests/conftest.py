"""Shared fixtures: the no-network guard, offline litellm settings, the scripted server."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

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

from scripted_server import ScriptedServer  # noqa: E402


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer().start()
    yield server
    server.stop()
