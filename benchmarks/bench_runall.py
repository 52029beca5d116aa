"""Run All on a fresh kernel: ``%load_ext jupyter_agent`` then ``%%agent`` right after.

A notebook whose first cell loads the extension and whose next cell prompts the agent
(Run All in JupyterLab) sends both cells at once: the prompt starts while the warm-up is
still importing litellm (seconds), and its answer cannot start before that import ends.
The floor is that import alone: ``import litellm`` as the first cell of a fresh kernel.
Measured in fresh kernels, alternating:

- floor: ``import litellm`` timed inside the cell (the same offline settings);
- ours: both cells sent back to back; from the agent cell's start (its ``execute_input``,
  the kernel's clock) to the first text of the answer leaving the kernel (the widget's
  first delta, the same clock), and to the request reaching the scripted server.

The figure is the difference of the medians (ours − floor); the goal is ≤ +0.3 s. The
kernel's CPU time (all its threads, from its start) is compared the same way: at the end
of the import for the floor, when the first text arrives for ours. On a loaded machine
the wall times stretch several-fold; the CPU times do not.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer, kernel_env

ROUNDS = 5
FLOOR = "import time\n_t = time.perf_counter()\nimport litellm\nprint(time.perf_counter() - _t)"
PROMPT = "%%agent\nsay hello"


def _stamp(msg: dict[str, Any]) -> float:
    date = msg["header"]["date"]
    if isinstance(date, str):
        date = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    return float(date.timestamp())


def _text_sent(msg: dict[str, Any]) -> bool:
    """A widget message that carries answer text (a delta, or a text part with text)."""
    if msg["msg_type"] != "comm_msg":
        return False
    content = msg["content"].get("data", {}).get("content") or {}
    return content.get("kind") == "delta"


def _status_texts(msgs: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in msgs:
        content = (m["content"].get("data", {}).get("content") or {}) if m["msg_type"] == "comm_msg" else {}
        if content.get("kind") == "status" and content.get("text"):
            out.append(content["text"])
    return out


def _cpu(kernel: Any) -> float:
    """The kernel process's CPU seconds so far (user + system, every thread); NaN off Linux."""
    try:
        fields = Path(f"/proc/{kernel.km.provisioner.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, AttributeError):
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _floor(server: ScriptedServer) -> dict[str, float]:
    from kernel_harness import Kernel

    folder = Path(tempfile.mkdtemp())
    kernel = Kernel(folder, kernel_env(server, folder))
    try:
        wall = float(kernel.execute(FLOOR).stdout.split()[-1])
        return {"wall": wall, "cpu": _cpu(kernel)}
    finally:
        kernel.shutdown()


def _ours(server: ScriptedServer) -> dict[str, Any]:
    """Both cells at once, as Run All sends them; times on the kernel's clock."""
    from kernel_harness import Kernel

    folder = Path(tempfile.mkdtemp())
    kernel = Kernel(folder, kernel_env(server, folder))
    try:
        before = len(server.requests)
        kernel.kc.execute("%load_ext jupyter_agent")
        agent_id = kernel.kc.execute(PROMPT)
        started = kernel.wait_for(
            lambda m: m["msg_type"] == "execute_input" and m["parent_header"].get("msg_id") == agent_id, 120
        )
        first = kernel.wait_for(_text_sent, 300)
        cpu = _cpu(kernel)
        kernel.drain(1.0)
        arrived = server.requests[before]["at"] if len(server.requests) > before else float("nan")
        return {
            "first_text_s": _stamp(first) - _stamp(started),
            "request_s": arrived - _stamp(started),
            "cpu_s": cpu,
            "statuses": _status_texts(kernel.iopub),
        }
    finally:
        kernel.shutdown()


def run(rounds: int = ROUNDS) -> dict[str, Any]:
    server = ScriptedServer().start()
    server.default = Reply(text="Hello! " * 20, chunk_size=7)
    floors: list[dict[str, float]] = []
    ours: list[dict[str, Any]] = []
    load = [os.getloadavg()[0]]
    try:
        _floor(server)  # the first import after an install also reads the files from disk
        for _ in range(rounds):  # alternating, so both see the same load
            floors.append(_floor(server))
            ours.append(_ours(server))
            load.append(os.getloadavg()[0])
    finally:
        server.stop()
    floor = statistics.median(f["wall"] for f in floors)
    first = statistics.median(o["first_text_s"] for o in ours)
    floor_cpu = statistics.median(f["cpu"] for f in floors)
    cpu = statistics.median(o["cpu_s"] for o in ours)
    return {
        "floor_s": floor,
        "first_text_s": first,
        "request_s": statistics.median(o["request_s"] for o in ours),
        "over_floor_s": first - floor,
        "floor_cpu_s": floor_cpu,
        "cpu_s": cpu,
        "over_floor_cpu_s": cpu - floor_cpu,
        "loading_shown": sum("Loading the model client" in " ".join(o["statuses"]) for o in ours) / len(ours),
        "rounds": rounds,
        "load": statistics.mean(load),
    }


if __name__ == "__main__":
    began = time.perf_counter()
    print(
        {
            k: round(v, 3) if isinstance(v, float) else v
            for k, v in run(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS).items()
        }
    )
    print(f"({time.perf_counter() - began:.0f} s)")
