"""Issue 27.4: a provider that sends one chunk and then nothing no longer waits forever.

``stream_idle_timeout`` (seconds without a byte, default 120) turns the silence into a
retryable "the provider stopped sending" error, and the usual retries follow. Stop and
Ctrl-C end a silent stream at once, as they end a slow one.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from cli_process import start_run, wait_for
from faults_support import stop_once
from scripted_server import Reply

from jupyter_agent.config import ConfigError, load_config
from jupyter_agent.core.messages import AssistantMessage, RetryPart, TextPart


def _text(runtime: Any, sid: str) -> str:
    """What the model said in the session."""
    return "".join(
        p.text
        for m in runtime.store.messages(sid)
        if isinstance(m.info, AssistantMessage)
        for p in m.parts
        if isinstance(p, TextPart)
    )


async def test_silence_is_retried_then_answered(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: "[retry 1 in 2 s] The provider stopped sending for 3 s (stream_idle_timeout); the
    answer is requested again.", then the answer."""
    scripted_server.queue(
        Reply(text="the first words and then silence", chunk_size=4, stall_after_chunks=2),
        Reply(text="the whole answer"),
    )
    runtime = make_runtime(stream_idle_timeout=3)  # a loaded machine may pause a second
    started = time.monotonic()
    sid = await runtime.prompt("hi")
    assert time.monotonic() - started < 60  # not the minutes a silent stream waited
    retries = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, RetryPart)]
    (retry,) = retries
    assert retry.error.message == (
        "The provider stopped sending for 3 s (stream_idle_timeout); the answer is requested again."
    )
    assert _text(runtime, sid) == "the whole answer"
    assert len(scripted_server.requests) == 2


async def test_silence_every_time_fails_the_step_with_that_reason(
    make_runtime: Any, scripted_server: Any
) -> None:
    scripted_server.queue(*[Reply(text="x" * 40, stall_after_chunks=1) for _ in range(2)])
    runtime = make_runtime(stream_idle_timeout=2, retries=1)  # a loaded machine may pause a second
    sid = await runtime.prompt("hi")
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "The provider stopped sending for 2 s (stream_idle_timeout)" in last.error.message
    assert len(scripted_server.requests) == 2


def test_the_key_is_checked(tmp_path: Path) -> None:
    assert load_config(tmp_path, global_dir=tmp_path / "g").stream_idle_timeout == 120
    with pytest.raises(ConfigError, match="stream_idle_timeout: Input should be greater than 0"):
        load_config(tmp_path, {"stream_idle_timeout": 0}, global_dir=tmp_path / "g")


async def test_stop_ends_a_silent_stream(make_runtime: Any, scripted_server: Any) -> None:
    """Stop while the provider is silent (default 120 s timeout): the step ends at once."""
    scripted_server.queue(Reply(text="some words then nothing", chunk_size=4, stall_after_chunks=2))
    runtime = make_runtime()
    task = asyncio.create_task(runtime.prompt("hi"))

    def words(e: Any) -> bool:
        return e.type == "part.updated" and getattr(e.part, "text", "").startswith("some")

    assert await stop_once(runtime, task, words) < 10  # the silence had 120 s to go
    assert _text(runtime, runtime.latest_session().id).startswith("some")


def test_sigint_ends_a_silent_stream(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="some words then nothing", chunk_size=4, stall_after_chunks=2))
    proc = start_run(scripted_server, tmp_path, "hi")
    assert proc.stdout is not None
    fd, shown = proc.stdout.fileno(), bytearray()

    def printed() -> bool:
        with contextlib.suppress(BlockingIOError):
            shown.extend(os.read(fd, 65536))
        return b"some" in shown

    try:
        os.set_blocking(fd, False)
        wait_for(printed, what="the first words")  # then the provider goes silent
        os.set_blocking(fd, True)
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - stopped_at < 15
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "error: stopped" in err
    assert (shown.decode() + rest).startswith("some")
