"""Children die with the run: a guardian process kills our shells' process groups.

``bash`` starts each command in its own process group so Stop and timeouts can kill
the whole tree. When the agent's process itself ends — SIGTERM, ``kill -9``, a kernel
that dies — nothing in it runs any more, so a small guardian does it: it reads
``+pgid`` / ``-pgid`` lines on a pipe from us, and at end of file (our process is gone,
however it went, since the kernel closes our end of the pipe) it sends SIGTERM, then
SIGKILL, to every group still registered. It sits in its own session so a Ctrl-C in
the terminal does not take it down before it has done its job.

It also holds, while a command runs, the protected paths the command could create
(``s<id> <json>`` … ``u<id>``): when the agent is gone before it could move them aside,
the guardian does (``tools/sweep.py``), once the command's processes are dead.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

_GUARD = r"""
import json, os, signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
groups, sweeps = set(), {}
for line in sys.stdin:
    op, rest = line[:1], line[1:].strip()
    if op == "s":
        key, _, spec = rest.partition(" ")
        sweeps[key] = spec
    elif op == "u":
        sweeps.pop(rest, None)
    elif rest.isdigit():
        (groups.add if op == "+" else groups.discard)(int(rest))
for sig in (signal.SIGTERM, signal.SIGKILL):
    for g in groups:
        try:
            os.killpg(g, sig)
        except OSError:
            pass
    if groups and sig == signal.SIGTERM:
        time.sleep(0.2)
if sweeps:
    time.sleep(0.2)
    import runpy
    sweep = runpy.run_path(sys.argv[1])["sweep"]
    for spec in sweeps.values():
        try:
            sweep(json.loads(spec))
        except Exception:
            pass
"""
SWEEP_FILE = str(Path(__file__).with_name("sweep.py"))

_lock = threading.Lock()
_pipe: IO[str] | None = None
_owner = 0


def _guard() -> IO[str] | None:
    """The pipe to this process's guardian, started on first use (and again after a fork)."""
    global _pipe, _owner
    if _pipe is not None and _owner == os.getpid():
        return _pipe
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _GUARD, SWEEP_FILE],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
    except OSError:
        return None
    _pipe, _owner = proc.stdin, os.getpid()
    return _pipe


def _send(line: str) -> None:
    with _lock:
        pipe = _guard()
        if pipe is None:
            return
        with contextlib.suppress(OSError, ValueError):
            pipe.write(line + "\n")
            pipe.flush()


def watch(pgid: int) -> None:
    """Kill process group ``pgid`` if this process ends before ``release(pgid)``."""
    _send(f"+{pgid}")


def release(pgid: int) -> None:
    _send(f"-{pgid}")


_sweeps = itertools.count(1)


def hold_sweep(entries: list[tuple[str, list[str]]]) -> int:
    """Have the guardian move aside what ``entries`` name if this process dies before
    ``drop_sweep(key)``; the key."""
    key = next(_sweeps)
    _send(f"s{key} {json.dumps(entries)}")
    return key


def drop_sweep(key: int) -> None:
    _send(f"u{key}")


def release_if_gone(pgid: int) -> None:
    """Stop watching ``pgid`` once no process is left in it (a background job keeps it)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        release(pgid)
    except PermissionError:
        pass
