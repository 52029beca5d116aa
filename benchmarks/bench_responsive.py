"""The notebook stays usable while the agent works: a trivial cell every 100 ms.

In one kernel with a front end attached, ``%agent`` runs in the background (as in
JupyterLab) while the benchmark sends a trivial cell (``pass``) every 100 ms and times
each from its ``execute_request`` to its ``execute_reply``, as a user's keystroke-to-result
wait. Cases, each against the same probes with the kernel idle (the baseline, same run):

- ``stream``: an 8,000-character answer as 1,000 chunks 2 ms apart;
- ``fast``: 16,000 characters as 2,000 chunks with no delay (a fast provider);
- ``bash``: the model runs ``sleep 2`` with the ``bash`` tool, then answers;
- ``python``: the model runs 2 s of Python in the live namespace with the ``python`` tool.

Reported per case: the median and 95th percentile of the probes' latency (targets: median
≤ 20 ms, 95th percentile ≤ 50 ms; the python tool holds the kernel's main thread, see
docs/performance.md), and how many probes ran while the agent worked.
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

ROUNDS = 3
PROBE_EVERY_S = 0.1
PYTHON_CODE = "import time as _t\n_end = _t.perf_counter() + 2\nwhile _t.perf_counter() < _end:\n    pass\n"


def _script(case: str) -> list[Reply]:
    from scripted_server import ToolCall

    if case == "stream":
        return [Reply(text=("abcdefg " * 1_000)[:8_000], chunk_size=8, delay_per_chunk=0.002)]
    if case == "fast":
        return [Reply(text=("abcdefg " * 2_000)[:16_000], chunk_size=8)]
    if case == "bash":
        call = ToolCall("bash", json.dumps({"command": "sleep 2; echo slept"}))
    else:
        call = ToolCall("python", json.dumps({"code": PYTHON_CODE}))
    return [Reply(tool_calls=[call]), Reply(text="done")]


def _idle(msg: dict[str, Any]) -> bool:
    """The widget says its run ended."""
    if msg["msg_type"] != "comm_msg":
        return False
    content = msg["content"].get("data", {}).get("content", {})
    return isinstance(content, dict) and content.get("kind") == "status" and content.get("state") == "idle"


def _probe(kernel: Any) -> float:
    """One trivial cell: seconds from its request to its reply."""
    started = time.perf_counter()
    msg_id = kernel.kc.execute("pass")
    while True:
        reply = kernel.kc.get_shell_msg(timeout=120)
        if reply["parent_header"].get("msg_id") == msg_id:
            return time.perf_counter() - started


def _drain(kernel: Any) -> bool:
    """Read what iopub has now; True when an agent run ended."""
    ended = False
    while kernel.kc.iopub_channel.msg_ready():
        msg = kernel.kc.get_iopub_msg(timeout=1)
        ended = ended or _idle(msg)
    return ended


def _probes_while(kernel: Any, start: str | None, limit_s: float = 120) -> list[float]:
    """Probe every 100 ms until the run started by the cell ``start`` ends (or for 3 s when
    ``start`` is None: the idle baseline)."""
    if start is not None:
        kernel.kc.execute(start)
    out: list[float] = []
    began = time.perf_counter()
    while time.perf_counter() - began < limit_s:
        tick = time.perf_counter()
        out.append(_probe(kernel))
        if _drain(kernel) or (start is None and tick - began >= 3):
            break
        time.sleep(max(0.0, PROBE_EVERY_S - (time.perf_counter() - tick)))
    return out


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median_ms": statistics.median(ordered) * 1000, "p95_ms": p95 * 1000, "probes": len(ordered)}


def run(
    rounds: int = ROUNDS, cases: tuple[str, ...] = ("stream", "fast", "bash", "python")
) -> dict[str, Any]:
    from kernel_harness import Kernel

    server = ScriptedServer().start()
    folder = Path(tempfile.mkdtemp())
    config = {"compaction": {"prune": False}, "permission": {"bash": "allow", "python": "allow"}}
    (folder / "jupyter-agent.json").write_text(json.dumps(config))
    kernel = Kernel(folder, kernel_env(server, folder))  # a front end is attached: runs in the background
    results: dict[str, Any] = {}
    try:
        kernel.execute("%load_ext jupyter_agent")
        server.queue(*_script("stream"))
        kernel.execute("%agent --wait warm up")  # the first prompt's one-time work is not measured
        load = [os.getloadavg()[0]]
        samples: dict[str, list[float]] = {"idle": [], **{case: [] for case in cases}}
        for _ in range(rounds):  # interleaved, so every case sees the same load
            samples["idle"] += _probes_while(kernel, None)
            for case in cases:
                server.queue(*_script(case))
                samples[case] += _probes_while(kernel, f"%agent {case}")
            load.append(os.getloadavg()[0])
        results = {case: _summary(found) for case, found in samples.items()}
        results["load"] = statistics.mean(load)
    finally:
        kernel.shutdown()
        server.stop()
    return results


if __name__ == "__main__":
    began = time.perf_counter()
    names = tuple(sys.argv[1:]) or ("stream", "fast", "bash", "python")
    for name, figures in run(cases=names).items():
        print(name, figures if isinstance(figures, float) else {k: round(v, 1) for k, v in figures.items()})
    print(f"({time.perf_counter() - began:.0f} s)")
