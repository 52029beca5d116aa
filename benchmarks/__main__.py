"""``python -m benchmarks [name …]``: run the benchmarks and write docs/performance.md.

Without names every benchmark runs (but ``instructions``, which takes most of an hour
under valgrind: name it). With names only those run again; the others keep their last
results from ``benchmarks/results.json`` (each figure is a ratio or a comparison measured
side by side inside one benchmark's run, so mixing runs is fair).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
from collections.abc import Callable
from typing import Any

from benchmarks import (
    bench_checkpoint,
    bench_cold,
    bench_contained,
    bench_context,
    bench_fast,
    bench_inline,
    bench_instructions,
    bench_kernel,
    bench_load,
    bench_memory,
    bench_reopen,
    bench_repro,
    bench_responsive,
    bench_runall,
    bench_session,
    bench_stream,
    bench_title,
    bench_turn,
)
from benchmarks.common import ROOT
from benchmarks.report import render

BENCHMARKS: dict[str, Callable[[], Any]] = {
    "turn": bench_turn.run,
    "title": bench_title.run,
    "kernel": bench_kernel.run,
    "stream": bench_stream.run,
    "context": bench_context.run,
    "load": bench_load.run,
    "cold": bench_cold.run,
    "reopen": bench_reopen.run,
    "memory": bench_memory.run,
    "session": bench_session.run,
    "fast": bench_fast.run,
    "responsive": bench_responsive.run,
    "runall": bench_runall.run,
    "verify": bench_repro.run_verify,
    "hidden": bench_repro.run_hidden,
    "contained": bench_contained.run,
    "inline": bench_inline.run,
    "instructions": bench_instructions.run,
    "checkpoint": bench_checkpoint.run,
}
ON_REQUEST = ("instructions",)
"""Run only when named (slow); the report shows their last results if there are any."""
RESULTS = ROOT / "benchmarks" / "results.json"


def main(names: list[str]) -> None:
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        sys.exit(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}")
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for name in names or [n for n in BENCHMARKS if n not in ON_REQUEST]:
        print(f"running {name} …", flush=True)
        load = os.getloadavg()[0]
        figures = BENCHMARKS[name]()
        load = max(load, os.getloadavg()[0])
        results[name] = {"date": str(dt.date.today()), "load_max": round(load, 1), **figures}
        RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    missing = [n for n in BENCHMARKS if n not in results and n not in ON_REQUEST]
    if missing:
        sys.exit(f"no results yet for {', '.join(missing)}: run python -m benchmarks {' '.join(missing)}")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    path = ROOT / "docs" / "performance.md"
    path.write_text(render(results, machine))
    print(path.read_text())


if __name__ == "__main__":
    main(sys.argv[1:])
