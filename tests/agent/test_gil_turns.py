"""While an answer streams, the kernel's other threads get the GIL every millisecond, and the
interpreter's own setting comes back when the last stream ends, whatever ended it.

User sees: a cell run while a fast model streams answers in ~20 ms instead of ~45 ms
(``benchmarks/bench_responsive.py``); after the answer, threads in their own code are
scheduled exactly as before.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.gil_turns import STREAM_SWITCH_S, short_gil_turns

DEFAULT = 0.005


@pytest.fixture(autouse=True)
def _default_interval() -> Iterator[None]:
    saved = sys.getswitchinterval()
    sys.setswitchinterval(DEFAULT)
    yield
    sys.setswitchinterval(saved)


def _kind(event: Any) -> str:
    return "delta" if event.type == "part.updated" and event.delta else event.type


def test_nested_streams_restore_the_setting_once_the_last_ends() -> None:
    with short_gil_turns():
        assert sys.getswitchinterval() == pytest.approx(STREAM_SWITCH_S)
        with short_gil_turns():  # a sub-agent's stream inside the parent's
            pass
        assert sys.getswitchinterval() == pytest.approx(STREAM_SWITCH_S)
    assert sys.getswitchinterval() == pytest.approx(DEFAULT)
    with pytest.raises(RuntimeError), short_gil_turns():
        raise RuntimeError("the provider failed")
    assert sys.getswitchinterval() == pytest.approx(DEFAULT)


def test_a_shorter_setting_of_the_users_own_is_kept() -> None:
    sys.setswitchinterval(0.00025)
    with short_gil_turns():
        assert sys.getswitchinterval() == pytest.approx(0.00025, abs=2e-6)
    assert sys.getswitchinterval() == pytest.approx(0.00025, abs=2e-6)


async def test_short_turns_while_text_streams_and_the_default_after(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(
        Reply(tool_calls=[ToolCall("bash", '{"command": "true"}')]),
        Reply(text="word " * 400, chunk_size=5),
    )
    runtime = make_runtime(permission={"bash": "allow"})
    seen: list[tuple[str, float]] = []
    runtime.bus.subscribe(lambda e: seen.append((_kind(e), sys.getswitchinterval())))
    await runtime.prompt("go")
    streaming = [interval for kind, interval in seen if kind == "delta"]
    assert streaming and all(i == pytest.approx(STREAM_SWITCH_S) for i in streaming)
    assert sys.getswitchinterval() == pytest.approx(DEFAULT)


async def test_a_stop_mid_stream_restores_the_default(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="word " * 4000, chunk_size=5, delay_per_chunk=0.002))
    runtime = make_runtime()
    task = asyncio.create_task(runtime.prompt("go"))
    while not any(_kind(e) == "delta" for e in runtime.events):
        await asyncio.sleep(0.01)
    assert sys.getswitchinterval() == pytest.approx(STREAM_SWITCH_S)
    runtime.stop()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sys.getswitchinterval() == pytest.approx(DEFAULT)
