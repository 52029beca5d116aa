"""Short GIL turns while a model's answer streams, so the user's cells answer meanwhile.

A fast provider's chunks are always ready, so the stream's thread (the kernel's event loop)
computes without pause; the loop itself is shared every few milliseconds (``processor``), but
a cell also crosses the kernel's other threads (the shell channel's, IOPub's), and each of
them waits for the GIL until CPython's switch interval (5 ms) runs out. A cell needs several
such hops: during a no-delay stream one took 45 ms median (88 ms at the 95th percentile)
on an idle machine; with 0.5 ms turns, 17-18 ms (43-47 ms), and the stream itself no slower
within the benchmark's noise. The interval is process-wide, so it is shortened only while a
stream is read and restored when the last one ends.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

STREAM_SWITCH_S = 0.0005
"""The switch interval while a stream is read (CPython's default is 0.005 s)."""

_lock = threading.Lock()
_streams = 0
_saved = 0.0


@contextmanager
def short_gil_turns() -> Iterator[None]:
    """Shorten the switch interval for the duration; nested and concurrent streams (sub-agents,
    a panel prompt beside a cell's) share one saved value, restored by the last to end (a value
    set by other code while a stream runs is replaced by the one from before the stream)."""
    global _streams, _saved
    with _lock:
        if _streams == 0:
            _saved = sys.getswitchinterval()
            sys.setswitchinterval(min(_saved, STREAM_SWITCH_S))
        _streams += 1
    try:
        yield
    finally:
        with _lock:
            _streams -= 1
            if _streams == 0:
                sys.setswitchinterval(_saved)
