r"""Run a file search in a child process that Stop, Ctrl-C and a time limit can end.

A search in this process cannot be stopped: Python's ``re`` on ``(a+)+$`` against
``"a"*40 + "!"`` backtracks for longer than anyone waits, and a thread ignores both
cancellation and Ctrl-C. So ``rg`` (or the Python fallback, ``grep_worker``) runs as a
child in its own process group: its output is read in chunks and parsed as it comes
(``path\0line:text`` lines, at most ``limit`` hits kept, over-long lines dropped), and
the group is killed when the hits are enough, the time is up, or the call is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from jupyter_agent.tools import process_guard

SEARCH_TIMEOUT_S = 30.0
MAX_RECORD = 64 * 1024
"""A longer output line is dropped; rg and the worker already cut lines far shorter."""

Hit = tuple[Path, int, str]


def parse_hit(raw: bytes) -> Hit | None:
    r"""One ``path\0line:text`` record (``rg --null`` format), or None."""
    file, sep, rest = raw.decode("utf-8", errors="replace").partition("\0")
    number, _, text = rest.partition(":")
    return (Path(file), int(number), text.rstrip("\r")) if sep and number.isdigit() else None


class SearchResult:
    def __init__(self) -> None:
        self.hits: list[Hit] = []
        self.returncode: int | None = None
        self.stderr = b""
        self.timed_out = False
        self.stopped = False


async def _collect(stream: asyncio.StreamReader, result: SearchResult, limit: int) -> None:
    pending = b""
    skipping = False
    while len(result.hits) < limit:
        chunk = await stream.read(1 << 16)
        if not chunk:
            break
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if skipping:  # the tail of a record that was too long
                skipping = False
                continue
            hit = parse_hit(line)
            if hit is not None and len(result.hits) < limit:
                result.hits.append(hit)
        if len(pending) > MAX_RECORD:
            pending, skipping = b"", True


async def run_search(
    cmd: list[str], abort: asyncio.Event | None, limit: int, cwd: Path | None = None
) -> SearchResult:
    """Run ``cmd``; returns what it found in ``SEARCH_TIMEOUT_S`` (flags say why it ended)."""
    result = SearchResult()
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        cwd=cwd,
    )
    process_guard.watch(proc.pid)
    assert proc.stdout is not None and proc.stderr is not None
    reader = asyncio.ensure_future(_collect(proc.stdout, result, limit))
    errors = asyncio.ensure_future(proc.stderr.read(MAX_RECORD))
    stop = asyncio.ensure_future(abort.wait()) if abort is not None else None
    try:
        waiting = {reader} | ({stop} if stop is not None else set())
        done, _ = await asyncio.wait(waiting, timeout=SEARCH_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        result.stopped = stop is not None and stop in done
        result.timed_out = not done
        if reader in done:
            reader.result()
    finally:
        for task in (reader, stop):
            if task is not None:
                task.cancel()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        # killed or finished: the wait is short, and must not be cut by a second cancel
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(proc.wait()), timeout=5)
        process_guard.release_if_gone(proc.pid)
    with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
        result.stderr = await asyncio.wait_for(errors, timeout=1)
    result.returncode = proc.returncode
    return result
