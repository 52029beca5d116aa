"""Faults on the way to the model: rate limits, server errors, streams cut off mid-answer.

Real HTTP through litellm to the scripted server, real SQLite. Each case first finishes
a turn (a tool result and an answer), then hits the fault, then checks that turn is still
in the store file unchanged.
"""

from __future__ import annotations

import time
from typing import Any

from faults_support import assert_kept, first_turn, parts
from scripted_server import ErrorReply, Reply

from jupyter_agent.core.messages import AssistantMessage, RetryPart, TextPart


async def test_429_retry_after_is_honoured_and_recorded(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: "retrying (attempt 1)" for about the second the provider asked, then the answer."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        ErrorReply(status=429, body="rate limited", headers={"retry-after": "1"}),
        Reply(text="ok after waiting"),
    )
    started = time.monotonic()
    await runtime.prompt("hi", session_id=sid)
    waited = time.monotonic() - started
    assert waited >= 0.9, waited  # the provider's second was waited out
    [retry] = parts(runtime, sid, RetryPart)
    assert retry.attempt == 1 and retry.error.status == 429
    # the wait scheduled is what Retry-After said, not the 2 s default backoff (read from the
    # part, not a clock: a loaded machine may take longer to get there, never a shorter wait)
    assert 900 <= retry.next - retry.time.created < 1500, retry.next - retry.time.created
    assert parts(runtime, sid, TextPart)[-1].text == "ok after waiting"
    assert_kept(runtime.store.path, before)


async def test_500_twice_then_success(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: two retry notices, then the answer; nothing is asked twice of the tools."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        ErrorReply(status=500, body="boom", headers={"retry-after-ms": "50"}),
        ErrorReply(status=500, body="boom", headers={"retry-after-ms": "50"}),
        Reply(text="third time lucky"),
    )
    await runtime.prompt("hi", session_id=sid)
    assert [r.attempt for r in parts(runtime, sid, RetryPart)] == [1, 2]
    assert parts(runtime, sid, TextPart)[-1].text == "third time lucky"
    assert_kept(runtime.store.path, before)


async def test_500_every_time_gives_up_with_the_error(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: four retries, then "The provider failed (500): …" on the answer; no crash."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        *[ErrorReply(status=500, body="still down", headers={"retry-after-ms": "10"}) for _ in range(5)]
    )
    await runtime.prompt("hi", session_id=sid)
    assert [r.attempt for r in parts(runtime, sid, RetryPart)] == [1, 2, 3, 4]
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "500" in last.error.message and "still down" in last.error.message
    assert_kept(runtime.store.path, before)


async def test_disconnect_mid_stream_then_success(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: the cut-off text replaced by the retried answer (no half sentence left over)."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        Reply(text="this answer will be cut off " * 20, disconnect_after_chunks=3),
        Reply(text="complete answer"),
    )
    await runtime.prompt("hi", session_id=sid)
    turn = runtime.store.messages(sid)[-1].parts
    texts = [p.text for p in turn if isinstance(p, TextPart)]
    assert texts == ["complete answer"]
    assert any(isinstance(p, RetryPart) for p in turn)
    assert_kept(runtime.store.path, before)
