"""A fast provider in a real kernel: ``%%agent --wait`` vs bare litellm, side by side.

A hosted model that streams fast, or a local vLLM, sends chunks faster than we handle
them: the scripted endpoint streams 16,000 characters as 2,000 chunks with no delay, so
the wall time is CPU (litellm's and ours), not the server's pacing. In one notebook
kernel with a front end attached (live widget, as in JupyterLab), rounds alternate

- bare: ``litellm.acompletion(stream=True)`` read to the end, in the cell;
- ours: ``%%agent --wait go``: streamed through the loop, persisted, sent to the live
  widget, the transcript written.

Each cell reports its wall time and the kernel's CPU time (``time.process_time``: every
thread of the kernel, its IOPub thread and the store's timer included). The figures are
the medians of the per-round ratios, so a load change between rounds cancels out.
``python -m benchmarks.bench_fast --profile`` prints a pyinstrument profile of one turn.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer, kernel_env

CHARS = 16_000
CHUNKS = 2_000
ROUNDS = 15
HELPERS = """
import asyncio, json, time
import litellm
_MODEL, _BASE = {model!r}, {base!r}
async def _bare():
    t = time.perf_counter(); cpu = time.process_time(); n = 0
    r = await litellm.acompletion(model=_MODEL, api_base=_BASE, api_key="sk-bench", stream=True,
                                  stream_options={{"include_usage": True}},
                                  messages=[{{"role": "user", "content": "go"}}])
    async for ch in r:
        if ch.choices and ch.choices[0].delta.content:
            n += len(ch.choices[0].delta.content)
    return {{"done": time.perf_counter() - t, "cpu": time.process_time() - cpu, "chars": n}}
def _ours():
    t = time.perf_counter(); cpu = time.process_time()
    get_ipython().run_cell_magic("agent", "--wait", "go")
    return {{"done": time.perf_counter() - t, "cpu": time.process_time() - cpu}}
"""
CELLS = {"bare": "print(json.dumps(await _bare()))", "ours": "print(json.dumps(_ours()))"}
PROFILE = """
import pyinstrument
_p = pyinstrument.Profiler(interval=0.0005)
_p.start()
_ours()
_p.stop()
print(_p.output_text(unicode=False, color=False, show_all=False))
"""


def _cell(kernel: Any, code: str) -> dict[str, float]:
    result = kernel.execute(code)
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"no result: {result.stdout[-300:]} {result.stderr[-600:]} {result.error}")
    return dict(json.loads(lines[-1]))


def start(
    env: dict[str, str] | None = None, server: ScriptedServer | None = None
) -> tuple[Any, ScriptedServer]:
    """A kernel with the helpers defined (``env``: extra variables, e.g. another checkout on
    ``PYTHONPATH`` to compare two versions side by side)."""
    from kernel_harness import Kernel

    if server is None:
        server = ScriptedServer().start()
        server.default = Reply(text=("abcdefg " * CHARS)[:CHARS], chunk_size=CHARS // CHUNKS)
    folder = Path(tempfile.mkdtemp())
    (folder / "jupyter-agent.json").write_text(json.dumps({"compaction": {"prune": False}}))
    kernel = Kernel(folder, {**kernel_env(server, folder), **(env or {})})  # a front end: live widgets
    kernel.execute("%load_ext jupyter_agent")
    kernel.execute(HELPERS.format(model=server.model, base=server.base_url))
    return kernel, server


def run(rounds: int = ROUNDS) -> dict[str, float]:
    kernel, server = start()
    samples: dict[str, list[dict[str, float]]] = {"bare": [], "ours": []}
    try:
        for cell in CELLS.values():  # warm-up both
            _cell(kernel, cell)
        load = os.getloadavg()[0]
        for i in range(rounds):
            order = list(CELLS.items()) if i % 2 == 0 else list(reversed(CELLS.items()))
            for name, cell in order:
                samples[name].append(_cell(kernel, cell))
        load = (load + os.getloadavg()[0]) / 2
    finally:
        kernel.shutdown()
        server.stop()
    bare, ours = samples["bare"], samples["ours"]
    if any(s["chars"] != CHARS for s in bare):
        raise RuntimeError(f"bare litellm read {[s['chars'] for s in bare]} characters, not {CHARS}")
    return {
        "bare_s": statistics.median(s["done"] for s in bare),
        "ours_s": statistics.median(s["done"] for s in ours),
        "bare_cpu_s": statistics.median(s["cpu"] for s in bare),
        "ours_cpu_s": statistics.median(s["cpu"] for s in ours),
        "ratio": statistics.median(o["done"] / b["done"] for b, o in zip(bare, ours, strict=True)),
        "cpu_ratio": statistics.median(o["cpu"] / b["cpu"] for b, o in zip(bare, ours, strict=True)),
        "rounds": rounds,
        "load": load,
    }


def profile() -> str:
    kernel, server = start()
    try:
        _cell(kernel, CELLS["ours"])
        return kernel.execute(PROFILE).stdout
    finally:
        kernel.shutdown()
        server.stop()


if __name__ == "__main__":
    began = time.perf_counter()
    if "--profile" in sys.argv:
        print(profile())
    else:
        print({k: round(v, 4) for k, v in run().items()})
    print(f"({time.perf_counter() - began:.0f} s, load {os.getloadavg()[0]:.1f})")
