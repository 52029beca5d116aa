"""The stream's idle timeout, one timer per stream: it ends a silent wait, never a lively
stream, never the consumer's own work between chunks, and leaves other cancels alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from jupyter_agent.providers.idle_watch import IdleTimeout, IdleWatch


async def _chunks(gaps: list[float]) -> AsyncIterator[int]:
    for i, gap in enumerate(gaps):
        await asyncio.sleep(gap)
        yield i


async def test_a_stream_that_keeps_sending_outlives_the_timeout() -> None:
    watch = IdleWatch(0.1)
    it = _chunks([0.04] * 10).__aiter__()  # 0.4 s in all, never 0.1 s silent
    got = [await watch.next(it) for _ in range(10)]
    with pytest.raises(StopAsyncIteration):
        await watch.next(it)
    watch.close()
    assert got == list(range(10))


async def test_silence_ends_the_wait_and_the_task_is_not_left_cancelling() -> None:
    watch = IdleWatch(0.1)
    it = _chunks([0.0, 5.0]).__aiter__()
    assert await watch.next(it) == 0
    loop = asyncio.get_running_loop()
    began = loop.time()
    with pytest.raises(IdleTimeout):
        await watch.next(it)
    assert loop.time() - began < 1.0
    task = asyncio.current_task()
    assert task is not None and (not hasattr(task, "cancelling") or task.cancelling() == 0)
    await asyncio.sleep(0.01)  # still usable: the cancel was taken back
    watch.close()


async def test_slow_work_between_chunks_is_not_cancelled() -> None:
    watch = IdleWatch(0.05)
    it = _chunks([0.0, 0.0]).__aiter__()
    await watch.next(it)
    await asyncio.sleep(0.2)  # the consumer's own work, 4× the timeout
    assert await watch.next(it) == 1
    watch.close()


async def test_a_cancel_from_outside_stays_a_cancel() -> None:
    async def consume() -> None:
        watch = IdleWatch(10)
        try:
            await watch.next(_chunks([5.0]).__aiter__())
        finally:
            watch.close()

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
