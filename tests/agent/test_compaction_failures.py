"""A summary that fails by a provider error or an interrupt blocks nothing (issue 12, item 4).

The overflow case is in ``test_compaction_flow.py``; here the summary request is refused
by the provider, or the user stops it mid-stream. Either way the summary keeps its error
with ``finish = "error"``, nothing is cut, and the next prompt runs as a normal step.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest
from scripted_server import ErrorReply, Reply, Usage

from jupyter_agent.core.messages import AssistantMessage

FULL = Usage(prompt_tokens=30_000, completion_tokens=10)  # over usable (27,904): auto compaction


def _users(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]


async def _wait_for_requests(server: Any, n: int) -> None:
    for _ in range(400):
        if len(server.requests) >= n:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"only {len(server.requests)} requests arrived")


@pytest.mark.parametrize("how", ["provider error", "interrupted"])
async def test_failed_summary_then_the_next_prompt_runs(
    make_runtime: Any, scripted_model: Any, how: str
) -> None:
    if how == "provider error":
        summary: Any = ErrorReply(400, "invalid_request_error: the request was rejected")
    else:
        summary = Reply(text="## Goal\n- s " * 200, chunk_size=4, delay_per_chunk=0.05)
    scripted_model.queue(Reply(text="answer one", usage=FULL), summary, Reply(text="answer two"))
    runtime = make_runtime()
    sid = runtime.new_session().id
    task = asyncio.create_task(runtime.prompt("question one", session_id=sid))
    if how == "interrupted":
        await _wait_for_requests(scripted_model, 2)
        await asyncio.sleep(0.3)  # the summary is streaming
        runtime.stop(sid)
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert len(scripted_model.requests) == 2
    failed = [
        m.info for m in runtime.store.messages(sid) if isinstance(m.info, AssistantMessage) and m.info.summary
    ]
    assert len(failed) == 1 and failed[0].finish == "error" and failed[0].error is not None
    await runtime.prompt("question two", session_id=sid)
    assert len(scripted_model.requests) == 3  # a normal step, no second summary
    last = scripted_model.requests[2]
    assert last["body"].get("tools")
    assert _users(last) == ["question one", "question two"]
    assert runtime.store.messages(sid)[-1].info.error is None
