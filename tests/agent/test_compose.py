"""``build_runtime`` wires the session service and the runner to the same store, bus and locks."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from scripted_server import Reply

from jupyter_agent.agent.revert import RevertError


async def test_revert_refuses_a_session_the_runner_is_running(
    make_runtime: Any, scripted_server: Any
) -> None:
    scripted_server.queue(Reply(text="slow answer " * 20, chunk_size=4, delay_per_chunk=0.05))
    runtime = make_runtime()
    sid = runtime.new_session().id
    run = asyncio.create_task(runtime.prompt("question", session_id=sid))
    while not runtime.sessions.busy(sid):  # the runner took the session's lock
        await asyncio.sleep(0.01)
    with pytest.raises(RevertError, match="stop it first"):
        runtime.sessions.revert(sid)
    await run
    assert not runtime.busy(sid)
    assert [s.id for s in runtime.sessions.list()] == [sid]


async def test_sessions_the_service_creates_reach_every_bus_listener(make_runtime: Any) -> None:
    runtime = make_runtime()
    session = runtime.sessions.create()
    assert runtime.store.get_session(session.id) == session
    assert [e.type for e in runtime.events] == ["session.created"]
    runtime.sessions.delete(session.id)
    assert [e.type for e in runtime.events] == ["session.created", "session.deleted"]
