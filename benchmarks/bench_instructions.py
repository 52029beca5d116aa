"""``bench_fast`` counted in instructions: the same two cells in a kernel run under callgrind.

Wall and CPU times on a shared machine move by ±30 % between runs; instruction counts do
not care about the load. The kernel runs under ``valgrind --tool=callgrind`` with
instrumentation switched on only around each measured cell (``callgrind_control``), so
the figure is every instruction of the kernel process (all its threads: the event loop,
IOPub, the store's writer, litellm's logging worker) for one ``%%agent --wait`` turn and one
bare litellm stream. Valgrind runs the kernel ~50× slower, so the kernel's clock is slowed
by the same factor: time-based batching (frames, the widget's 50 ms window, the store's
200 ms writes, the gauge) sees the same number of windows as at native speed.

Takes ~30-60 min; not part of ``python -m benchmarks`` without a name:
``python -m benchmarks instructions``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_fast import CELLS, CHARS, CHUNKS, HELPERS
from benchmarks.common import Reply, ScriptedServer, kernel_env

DILATE = 50
SLOW_CLOCK = f"""
import time
_real_monotonic = time.monotonic
_t0 = _real_monotonic()
time.monotonic = lambda: _t0 + (_real_monotonic() - _t0) / {DILATE}
"""
TIMEOUT_S = 3600


def _kernelspec(folder: Path) -> Path:
    spec = folder / "kernels" / "callgrind"
    spec.mkdir(parents=True)
    argv = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={folder}/cg.%p"]
    argv += [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "cg", "language": "python"}))
    return folder


def _control(pid: int, *args: str) -> str:
    out = subprocess.run(["callgrind_control", *args, str(pid)], capture_output=True, text=True, timeout=1200)
    return out.stdout


def _threads(pid: int) -> dict[int, int]:
    """Instructions per thread since the counters were zeroed."""
    out = _control(pid, "-e", "Ir")
    return {int(t): int(n.replace(",", "")) for t, n in re.findall(r"Th\s*(\d+)\s+([\d,]+)", out)}


def run() -> dict[str, Any]:
    from jupyter_client.manager import KernelManager
    from kernel_harness import Kernel

    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise RuntimeError("valgrind (callgrind) is not installed: apt-get install valgrind")
    server = ScriptedServer().start()
    server.default = Reply(text=("abcdefg " * CHARS)[:CHARS], chunk_size=CHARS // CHUNKS)
    folder = Path(tempfile.mkdtemp())
    (folder / "jupyter-agent.json").write_text(json.dumps({"compaction": {"prune": False}}))
    os.environ["JUPYTER_PATH"] = str(_kernelspec(Path(tempfile.mkdtemp())))
    kernel = Kernel.__new__(Kernel)  # the harness's client, around a kernel started under valgrind
    kernel.km = KernelManager(kernel_name="callgrind")
    kernel.km.start_kernel(cwd=str(folder), env={**os.environ, **kernel_env(server, folder)})
    kernel.kc = kernel.km.client()
    kernel.kc.start_channels()
    kernel.kc.wait_for_ready(timeout=TIMEOUT_S)
    kernel.iopub = []
    pid = kernel.km.provisioner.process.pid
    result: dict[str, Any] = {"dilate": DILATE}
    try:
        kernel.execute(SLOW_CLOCK, TIMEOUT_S)
        kernel.execute("%load_ext jupyter_agent", TIMEOUT_S)
        kernel.execute(HELPERS.format(model=server.model, base=server.base_url), TIMEOUT_S)
        for cell in CELLS.values():  # warm-up, not counted
            kernel.execute(cell, TIMEOUT_S)
        for name, cell in CELLS.items():
            _control(pid, "-i", "on")
            _control(pid, "-z")
            before = len(kernel.iopub)
            kernel.execute(cell, TIMEOUT_S)
            threads = _threads(pid)
            _control(pid, "-i", "off")
            main = threads.get(1, 0)
            result[f"{name}_instructions"] = sum(threads.values())
            result[f"{name}_main"] = main
            result[f"{name}_comm_msgs"] = sum(1 for m in kernel.iopub[before:] if m["msg_type"] == "comm_msg")
    finally:
        kernel.shutdown()
        server.stop()
    result["ratio"] = result["ours_instructions"] / result["bare_instructions"]
    result["main_ratio"] = result["ours_main"] / result["bare_main"]
    return result


if __name__ == "__main__":
    print(run())
