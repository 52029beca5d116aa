"""The first ``%agent`` in a fresh kernel against a warm one, in the same kernel.

A new user's first answer is what they judge us by: ``%load_ext`` starts a background
warm-up (litellm, tiktoken, the store, the model map), so a first prompt sent a few
seconds later should cost about what a warm prompt does. Measured in fresh kernels:
the first prompt sent ``DELAY_S`` after ``%load_ext``, the first sent at once, and a
warm prompt in the same kernel as the baseline.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import Reply, ScriptedServer, kernel_env

KERNELS = 3
DELAY_S = 5.0
CELL = (
    "import time\n_t = time.perf_counter()\nget_ipython().run_line_magic('agent', '--wait hello')\n"
    "print(time.perf_counter() - _t)"
)


def _first_and_warm(server: ScriptedServer, delay: float) -> tuple[float, float]:
    from kernel_harness import Kernel

    folder = Path(tempfile.mkdtemp())
    env = kernel_env(server)
    kernel = Kernel(folder, env)
    try:
        kernel.execute("%load_ext jupyter_agent")
        time.sleep(delay)
        first = float(kernel.execute(CELL).stdout.split()[-1])
        warm = statistics.median(float(kernel.execute(CELL).stdout.split()[-1]) for _ in range(3))
    finally:
        kernel.shutdown()
    return first, warm


def run() -> dict[str, float]:
    server = ScriptedServer().start()
    server.default = Reply(text="hi there " * 20, chunk_size=5)
    try:
        later = [_first_and_warm(server, DELAY_S) for _ in range(KERNELS)]
        at_once = [_first_and_warm(server, 0.0) for _ in range(KERNELS)]
    finally:
        server.stop()
    warm = statistics.median(w for _, w in later + at_once)
    return {
        "warm_s": warm,
        "first_after_delay_s": statistics.median(f for f, _ in later),
        "first_at_once_s": statistics.median(f for f, _ in at_once),
        "delay_s": DELAY_S,
    }


if __name__ == "__main__":
    print(run())
