"""docs/performance.md's reproducibility section: ``%agent verify`` and hidden-state tracking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def repro(r: dict[str, Any], _met: Callable[[bool], str]) -> list[str]:
    """What verifying a notebook costs over running it, how fast Stop is, what tracking adds."""
    if "verify" not in r or "hidden" not in r:
        return []
    verify, hidden = r["verify"], r["hidden"]
    return [
        "",
        "## Reproducibility (`bench_repro`)",
        "",
        "| goal | ours | baseline | figure | target | | load |",
        "|---|---|---|---|---|---|---|",
        f"| `verify`: {verify['cells']}-cell notebook (sleep, arithmetic, prints, rich outputs) verified "
        f"vs run by plain nbclient (kernel start + cells + immediate shutdown), alternating, medians "
        f"| {verify['ours_s']:.2f} s | {verify['floor_s']:.2f} s | {verify['ratio']:.2f}× | ≤ 1.10× "
        f"| {_met(verify['ratio'] <= 1.10)} | {verify.get('load_max', float('nan')):.1f} |",
        f"| … Stop: a verification cancelled while a cell sleeps, until its kernel process is gone "
        f"| {verify['stop_s'] * 1000:.0f} ms | | | ≤ 2 s | {_met(verify['stop_s'] <= 2)} "
        f"| {verify.get('load_max', float('nan')):.1f} |",
        f"| `hidden`: a trivial cell naming hidden state, {hidden['names']} user names in the namespace "
        f"(lists, dicts, DataFrames), the kernel's `run_cell` with the tracker's hooks vs without "
        f"(its thread's CPU time), batches of 20, alternating | {hidden['cell_on_s'] * 1000:.2f} ms "
        f"| {hidden['cell_off_s'] * 1000:.2f} ms "
        f"| +{hidden['added_s'] * 1000:.2f} ms | ≤ +5 ms | {_met(hidden['added_s'] <= 0.005)} "
        f"| {hidden.get('load_max', float('nan')):.1f} |",
        "",
        f"- The tracker's two hooks alone (a namespace snapshot before and after, the diff, the AST of a "
        f"cell that names hidden state) take {hidden['hooks_s'] * 1000:.2f} ms per cell here. Nothing "
        "is copied: a snapshot holds each name's `id` and an O(1) fingerprint (a container's length, "
        "an array's shape), so its cost grows with the number of names, not the size of the data.",
        "- Timed as wall time from a client instead, a cell's ZMQ round trip on this shared machine "
        'moves by tens of milliseconds (no-op hooks measured 3 to 13 ms "slower"), and the warm-up\'s '
        "import of litellm shares the GIL for seconds after `%load_ext`: the kernel thread's CPU time, "
        "after the warm-up, is what the tracker adds.",
        "- A verification can end below its floor: it kills its kernel's process group at once, where "
        "nbclient's immediate shutdown polls for the process to go (0.1 s steps). Reading the notebook, "
        "comparing the outputs and judging the cells cost a few milliseconds per cell.",
    ]
