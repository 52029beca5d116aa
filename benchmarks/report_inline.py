"""docs/performance.md's section on inline completion (``bench_inline``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def inline(r: dict[str, Any], _met: Callable[[bool], str]) -> list[str]:
    if "inline" not in r:
        return []
    f = r["inline"]
    return [
        "",
        "## Inline completion (`bench_inline`)",
        "",
        f"Suggestions in cells from the kernel, with the scripted model answering at once "
        f"(load {f.get('load_max', float('nan')):.1f} on 2 cores).",
        "",
        "| goal | measured | target | |",
        "|---|---|---|---|",
        f"| the kernel's own work per request: live names and budgeted context, 200 names with 5 "
        f"DataFrames of 10,000 × 20 (median) | {f['context_ms']:.1f} ms | ≤ 20 ms "
        f"| {_met(f['context_ms'] <= 20)} |",
        f"| pause to ghost text, after the debounce: the request the front end sends once typing "
        f"paused to the first suggestion text back, real kernel (median) | {f['pause_to_ghost_ms']:.0f} ms "
        f"| ≤ 80 ms | {_met(f['pause_to_ghost_ms'] <= 80)} |",
        f"| a 1 s CPU-bound cell while a front end asks every 50 ms, over the cell alone "
        f"({f['cell_asked_s']:.3f} s / {f['cell_alone_s']:.3f} s, medians, interleaved) "
        f"| {f['cell_ratio']:.3f}× | ≤ 1.05× | {_met(f['cell_ratio'] <= 1.05)} |",
        f"| aborting a streaming suggestion: cancel to task ended and HTTP connection closed (median) "
        f"| {f['abort_ms']:.2f} ms | < 2 ms | {_met(f['abort_ms'] < 2)} |",
    ]
