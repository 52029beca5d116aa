"""``%load_ext jupyter_agent`` time in a fresh interpreter, against importing IPython alone."""

from __future__ import annotations

import subprocess
import sys

SNIPPET = """
import time
from IPython.core.interactiveshell import InteractiveShell
shell = InteractiveShell.instance()
start = time.perf_counter()
{body}
print(time.perf_counter() - start)
"""


def _time(body: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", SNIPPET.format(body=body)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def run() -> dict[str, float]:
    runs = [_time("shell.run_line_magic('load_ext', 'jupyter_agent')") for _ in range(3)]
    baseline = [_time("import json, sqlite3") for _ in range(3)]
    load = sorted(runs)[1]
    return {"load_ext_ms": load * 1000, "baseline_ms": sorted(baseline)[1] * 1000}


if __name__ == "__main__":
    print(run())
