"""Run frontend callbacks on the kernel's own asyncio loop.

With ipykernel 7 subshells (JupyterLab ≥ 4.6), comm messages may be handled on a
subshell thread. Asyncio objects (tasks, futures, events) are not thread-safe: a task
created from that thread sits unnoticed until something else wakes the loop. Every
panel request and widget click is therefore handed to the loop captured at creation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def call_on(loop: asyncio.AbstractEventLoop | None, fn: Callable[..., Any], *args: Any) -> None:
    """Call ``fn(*args)`` now if we are on ``loop``, else soon on ``loop``'s thread."""
    if loop is None or loop.is_closed() or running_loop() is loop:
        fn(*args)
    else:
        loop.call_soon_threadsafe(fn, *args)
