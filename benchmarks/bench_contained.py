"""The contained kernel: what starting ipykernel in the sandbox adds, and what the guard costs.

Start: from ``start_kernel`` to the first kernel_info reply (``wait_for_ready``), the same
interpreter and ipykernel started as the ordinary kernelspec does and through the
contained kernelspec, alternating; medians. Also without a network (the channels relayed).
Guard: the ``python`` tool running code that opens 2,000 files in an ordinary kernel, with
the guard and without (the contained kernel's way), in one process, alternating.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

from jupyter_agent import trust
from jupyter_agent.contained import kernelspec

REPEAT = 9
OPENS = 2_000


def _start(cwd: Path, name: str | None, specs: KernelSpecManager) -> float:
    if name is None:
        km = KernelManager(kernel_name="python3")
        km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    else:
        km = KernelManager(kernel_name=name, kernel_spec_manager=specs)
    started = time.perf_counter()
    km.start_kernel(cwd=str(cwd))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        return time.perf_counter() - started
    finally:
        kc.stop_channels()
        km.shutdown_kernel()


def _guard_cost(folder: Path) -> tuple[float, float]:
    # the tools (and IPython) load only for this part of the benchmark
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.tools import python as python_tool
    from jupyter_agent.tools.base import ToolContext
    from jupyter_agent.tools.protected import Guard

    shell = InteractiveShell.instance()
    (folder / "f.txt").write_text("x")
    code = f"for _ in range({OPENS}):\n    open({str(folder / 'f.txt')!r}).close()"
    ctx = ToolContext("s", "m", "c", "build", folder, folder)
    policy = python_tool.python_guard.Policy.make(folder, folder, Guard(), ctx.rule)
    on, off = [], []
    for _ in range(REPEAT):
        for chosen, out in ((policy, on), (None, off)):
            started = time.perf_counter()
            asyncio.run(python_tool.execute(shell, code, None, policy=chosen))
            out.append(time.perf_counter() - started)
    return statistics.median(on), statistics.median(off)


def run() -> dict[str, float]:
    base = Path(tempfile.mkdtemp(prefix="bench-contained-"))
    kernelspec.install(prefix=str(base / "prefix"))
    specs = KernelSpecManager(kernel_dirs=[str(base / "prefix" / "share" / "jupyter" / "kernels")])
    online, offline = base / "online", base / "offline"
    online.mkdir()
    offline.mkdir()
    config = offline / "jupyter-agent.json"
    config.write_text(json.dumps({"sandbox": {"network": False}}))
    trust.record(config, trust.digest(config.read_bytes()), "trust")
    name = kernelspec.DEFAULT_NAME
    for folder, chosen in ((online, None), (online, name), (offline, name)):
        _start(folder, chosen, specs)  # warm: the page cache, the settings kept for the next start
    plain, contained, relayed = [], [], []
    for _ in range(REPEAT):
        plain.append(_start(online, None, specs))
        contained.append(_start(online, name, specs))
        relayed.append(_start(offline, name, specs))
    guard_on, guard_off = _guard_cost(base)
    return {
        "ordinary_s": statistics.median(plain),
        "contained_s": statistics.median(contained),
        "offline_s": statistics.median(relayed),
        "added_s": statistics.median(contained) - statistics.median(plain),
        "offline_added_s": statistics.median(relayed) - statistics.median(plain),
        "guard_on_s": guard_on,
        "guard_off_s": guard_off,
        "opens": OPENS,
    }
