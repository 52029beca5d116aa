"""Retry-After is bounded (issue 13 item 9, SPEC "retry" row).

``inf`` / ``1e400`` crashed the step with ``OverflowError`` and left the answer open;
``3600`` slept an hour without a word. A wait over 5 minutes or one that is not a finite
number is not slept: the step fails at once with the provider's wait in the message.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from faults_support import assert_kept, first_turn, parts
from scripted_server import ErrorReply, Reply

from jupyter_agent.core.messages import AssistantMessage, RetryPart


@pytest.mark.parametrize(
    ("wait", "said"),
    [
        ("inf", "longer than jupyter-agent waits (5 minutes)"),
        ("1e400", "longer than jupyter-agent waits (5 minutes)"),
        ("3600", "longer than jupyter-agent waits (5 minutes)"),
        ("nan", "which is not a wait jupyter-agent can read"),
        ("-inf", "which is not a wait jupyter-agent can read"),
        ("soon-ish", "which is not a wait jupyter-agent can read"),
    ],
)
async def test_unbounded_retry_after_fails_the_step_at_once(
    make_runtime: Any, scripted_server: Any, wait: str, said: str
) -> None:
    """User sees: "… The provider asked to wait (retry-after: inf), longer than jupyter-agent
    waits (5 minutes); run the prompt again later." within a second (a header that is no wait,
    "soon-ish", is called that rather than long); the answer is closed."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        ErrorReply(status=429, body="rate limited", headers={"retry-after": wait}), Reply(text="never")
    )
    started = time.monotonic()
    await runtime.prompt("hi", session_id=sid)
    assert time.monotonic() - started < 30  # not the provider's hour (room for a loaded machine)
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    expected = f"rate limited. The provider asked to wait (retry-after: {wait}), {said}; run the prompt again"
    assert expected in last.error.message
    assert last.time.completed is not None
    assert parts(runtime, sid, RetryPart) == []
    assert_kept(runtime.store.path, before)


async def test_retries_config_bounds_the_attempts(make_runtime: Any, scripted_server: Any) -> None:
    """User sees: one retry notice (``"retries": 1``), then the provider's error."""
    runtime = make_runtime(retries=1)
    sid, _ = await first_turn(runtime, scripted_server)
    scripted_server.queue(
        *[ErrorReply(status=500, body="down", headers={"retry-after-ms": "10"}) for _ in range(3)]
    )
    await runtime.prompt("hi", session_id=sid)
    assert [r.attempt for r in parts(runtime, sid, RetryPart)] == [1]


def test_delay_parsing_is_bounded() -> None:
    from jupyter_agent.agent.retrying import retry_delay_ms
    from jupyter_agent.providers.retry_after import RetryWaitTooLong

    assert retry_delay_ms(1, {"retry-after": "300"}) == 300_000
    assert retry_delay_ms(1, {"retry-after-ms": "1.5"}) == 1
    assert retry_delay_ms(1, {"retry-after": ""}) == 2000
    assert retry_delay_ms(1, {"retry-after": "-5"}) == 0
    for headers in ({"retry-after": "301"}, {"retry-after-ms": "inf"}, {"retry-after": "1e400"}):
        with pytest.raises(RetryWaitTooLong) as long_wait:
            retry_delay_ms(1, headers)
        assert long_wait.value.readable
    for headers in ({"retry-after-ms": "nan"}, {"retry-after-ms": "later"}, {"retry-after": "Tue, 99 Foo"}):
        with pytest.raises(RetryWaitTooLong) as no_wait:
            retry_delay_ms(1, headers)
        assert not no_wait.value.readable
