"""Bounded memory: a 1,000-turn ``%agent`` session with compaction in a real kernel.

One cell runs ``%agent --wait`` turn after turn against the scripted endpoint (each answer
~2,000 characters; a 16,000-token window so automatic compaction runs every dozen turns),
each with its live widget, as a user's cells would. The kernel's resident memory is read
from ``/proc/self/statm`` every ``EVERY`` turns; the figure is its growth after the first
100 turns (what a long session keeps adding), against the kernel's RSS at turn 100.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer, kernel_env

TURNS = int(os.environ.get("BENCH_MEMORY_TURNS", "1000"))
"""``BENCH_MEMORY_TURNS=300`` for a shorter run (the growth is still measured from turn 100)."""
EVERY = 100
CONTEXT = 16_000
LOOP = """
import gc, json, os, time
_page = os.sysconf("SC_PAGE_SIZE")
def _rss():
    gc.collect()
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _page
_samples = []
_t = time.perf_counter()
for _i in range({turns}):
    get_ipython().run_line_magic("agent", f"--wait turn {{_i}}: summarise the next batch")
    if (_i + 1) % {every} == 0:
        _samples.append([_i + 1, _rss(), time.perf_counter() - _t])
_ka = get_ipython().magics_manager.registry["AgentMagics"].agent
_rt = _ka.runtime
_history = _rt.store.messages(_ka.session_id)
_sizes = {{"tasks": len(_ka.tasks), "bus_subscribers": len(_rt.bus._subs),
          "summaries": sum(1 for m in _history if getattr(m.info, "summary", False)),
          "messages": len(_history), "parts": sum(len(m.parts) for m in _history)}}
print(json.dumps({{"samples": _samples, "sizes": _sizes}}))
"""


def run(turns: int = TURNS) -> dict[str, Any]:
    from kernel_harness import Kernel

    server = ScriptedServer().start()
    server.realistic_usage = True
    server.default = Reply(text=("Batch summary: values are steady. " * 60)[:2_000], chunk_size=40)
    folder = Path(tempfile.mkdtemp())
    (folder / "jupyter-agent.json").write_text(
        json.dumps({"models": {server.model: {"limit": {"context": CONTEXT, "output": 2_000}}}})
    )
    env = kernel_env(server, folder)  # a front end is attached: live widgets
    kernel = Kernel(folder, env)
    try:
        kernel.execute("%load_ext jupyter_agent")
        result = kernel.execute(LOOP.format(turns=turns, every=min(EVERY, turns)), timeout=1_800)
        kernel.iopub.clear()  # the harness keeps every message; the kernel is what we measure
        data = json.loads(result.stdout.strip().splitlines()[-1])
    finally:
        kernel.shutdown()
        server.stop()
    samples = data["samples"]
    first = samples[0]
    last = samples[-1]
    return {
        "turns": last[0],
        "rss_at_100_mb": first[1] / 1e6,
        "rss_end_mb": last[1] / 1e6,
        "growth_mb": (last[1] - first[1]) / 1e6,
        "seconds": last[2],
        "requests": len(server.requests),
        "compactions": data["sizes"]["summaries"],
        "samples": samples,
        "sizes": data["sizes"],
    }


if __name__ == "__main__":
    start = time.perf_counter()
    print(run(int(sys.argv[1]) if len(sys.argv) > 1 else TURNS))
    print(f"({time.perf_counter() - start:.0f} s)")
