"""docs/performance.md's section on checkpoints (what undo costs; ``bench_checkpoint``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def checkpoints(r: dict[str, Any], _met: Callable[[bool], str]) -> list[str]:
    if "checkpoint" not in r:
        return []
    c = r["checkpoint"]
    files, variables = c["files"], c["variables"]
    load = f"load {c.get('load_max', float('nan')):.1f}"
    mb = variables["frame_mb"]
    return [
        "",
        "## Checkpoints: what undo costs (`bench_checkpoint`)",
        "",
        "Before each tool call that may change something, the project's files are walked (an "
        "unchanged file costs one `stat`; a changed one is read and kept once) and the kernel "
        "variables its code may change are saved. Interleaved runs, medians; the machine's load "
        "average (2 cores) is given.",
        "",
        "| goal | ours | baseline | figure | target | | load |",
        "|---|---|---|---|---|---|---|",
        f"| a step in a {files['files']:,}-file project that changes {files['changed']} files, with its "
        f"checkpoint vs without | {files['checkpointed_s'] * 1000:.0f} ms | {files['step_s'] * 1000:.0f} ms "
        f"| +{files['overhead_ms']:.0f} ms | ≤ +50 ms | {_met(files['overhead_ms'] <= 50)} | {load} |",
        f"| `sales = sales.dropna()` on a {mb:.0f} MB DataFrame, `sales` saved first (pandas "
        f"copy-on-write) vs the call alone | {variables['saved_call_s'] * 1000:.0f} ms "
        f"| {variables['call_s'] * 1000:.0f} ms | {variables['ratio']:.2f}× | ≤ 1.5× "
        f"| {_met(variables['ratio'] <= 1.5)} | {load} |",
        f"| … with the deep copy pandas before 3 needs (copy-on-write off) "
        f"| {variables['deep_saved_call_s'] * 1000:.0f} ms | {variables['deep_call_s'] * 1000:.0f} ms "
        f"| {variables['deep_ratio']:.2f}× | | | {load} |",
        f"| a call that only reads `sales` (`n = len(sales)`): copied | "
        f"{', '.join(variables['read_copied']) or 'nothing'} | | "
        f"+{variables['read_overhead_us']:.0f} µs | nothing "
        f"| {_met(not variables['read_copied'])} | {load} |",
        "",
        f"The fastest of the interleaved runs (what the step costs when the shared machine lets "
        f"it run) added {files.get('fastest_overhead_ms', float('nan')):.0f} ms. "
        f"The first snapshot of a project keeps every file within the limits once "
        f"({files['first_snapshot_s'] * 1000:.0f} ms for these {files['files']:,} files, ~2 KB each); "
        "a restarted kernel reads only the files changed since (the stat cache is kept on disk). "
        "With pandas ≥ 3 a saved DataFrame is a copy-on-write copy: it costs nothing until the "
        "code changes the frame in place, which then copies the blocks it writes. Older pandas "
        f"(copy-on-write off) needs a deep copy of all {mb:.0f} MB before the call "
        f"({variables['deep_ratio']:.1f}× the call here, where fresh memory is slow to come by on the "
        "loaded machine); `pd.options.mode.copy_on_write = True` in pandas 2 gives the cheap copy.",
    ]
