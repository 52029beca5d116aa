"""docs/performance.md's section on the contained kernel and the python tool's guard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def contained(r: dict[str, Any], _met: Callable[[bool], str]) -> list[str]:
    if "contained" not in r:
        return []
    c = r["contained"]
    per_open_us = (c["guard_on_s"] - c["guard_off_s"]) / c["opens"] * 1e6
    return [
        "",
        "## Contained kernel (`bench_contained`)",
        "",
        "| goal | ours | baseline | figure | target | | load |",
        "|---|---|---|---|---|---|---|",
        f"| start a contained kernel (its kernelspec) vs the same ipykernel uncontained, until the first "
        f"kernel_info reply, alternating, medians | {c['contained_s']:.2f} s | {c['ordinary_s']:.2f} s "
        f"| +{c['added_s'] * 1000:.0f} ms | ≤ +150 ms | {_met(c['added_s'] <= 0.15)} "
        f"| {c.get('load_max', float('nan')):.1f} |",
        f"| … with `sandbox.network: false` (its channels relayed over unix sockets) "
        f"| {c['offline_s']:.2f} s | {c['ordinary_s']:.2f} s | +{c['offline_added_s'] * 1000:.0f} ms | | "
        f"| {c.get('load_max', float('nan')):.1f} |",
        f"| the python tool's guard in an ordinary kernel: code opening {c['opens']:,} files, guarded "
        f"vs not | {c['guard_on_s'] * 1000:.0f} ms | {c['guard_off_s'] * 1000:.0f} ms "
        f"| +{per_open_us:.1f} µs per file | | | {c.get('load_max', float('nan')):.1f} |",
        "",
        "- The launcher plans the same layout a `bash` command gets and starts ipykernel in it; the "
        "sandbox settings it reads from the configuration are kept in your user data folder with the "
        "stamps of the files they came from, so pydantic loads only when one of them changed.",
        "- The guard's hook runs for the audit events it watches only (opening files, starting "
        "processes, loading native code …), and only finds a policy while the agent's code is on the "
        "stack; your own cells pay a check of the event's name.",
    ]
