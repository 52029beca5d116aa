"""Shared benchmark plumbing: the scripted server, offline settings, timing helpers."""

from __future__ import annotations

import os
import statistics
import sys
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


def median_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def row(name: str, value: str) -> str:
    return f"| {name} | {value} |"
