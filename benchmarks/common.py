"""Shared benchmark plumbing: the scripted server, offline settings, timing helpers."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "netguard"))

import guard  # noqa: E402

guard.install()  # benchmarks never touch the network either

from scripted_server import Reply, ScriptedServer  # noqa: E402,F401

from jupyter_agent import trust  # noqa: E402

if "JUPYTER_AGENT_DATA_DIR" not in os.environ:
    # benchmarks write their jupyter-agent.json into fresh temporary folders, as a user who
    # trusts them would (`jupyter-agent trust --folder`), in a data folder of their own
    os.environ["JUPYTER_AGENT_DATA_DIR"] = tempfile.mkdtemp(prefix="ja-bench-data-")
    trust.trust_folder(Path(tempfile.gettempdir()).resolve())


def kernel_env(server: ScriptedServer, folder: Path | None = None) -> dict[str, str]:
    """Settings for a benchmark kernel talking to ``server``; with ``folder`` a front end
    counts as attached (``JPY_SESSION_NAME``), so the agent streams live widgets."""
    env = {
        "JUPYTER_AGENT_MODEL": server.model,
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-bench",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    if folder is not None:
        env["JPY_SESSION_NAME"] = str(folder / "bench.ipynb")
    return env


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name: str, value: str) -> str:
    return f"| {name} | {value} |"
