"""The title is a model call for the session: the budget counts it, and once the session's
budget is used up no title call is made (in-process scripted model)."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_model import Reply

from jupyter_agent.core import ids
from jupyter_agent.core.messages import AssistantMessage


async def test_the_title_cost_counts_toward_the_session_budget(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_cost = 0.40  # a title read from a long first prompt
    runtime = make_runtime(budget={"session_usd": 0.25})
    sid = await runtime.prompt("a long first prompt")
    await runtime.settle_titles()  # asked beside the answer, never waited for by the run
    assert runtime.store.get_session(sid).title == scripted_model.title_reply.text
    assert runtime.recorder(sid).spent().usd == 0.40
    await runtime.prompt("more", session_id=sid)
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "session budget of $0.25 is used up (spent $0.4000 + unknown)" in last.error.message
    assert len(scripted_model.requests) == 1  # refused without a call


async def test_no_title_call_once_the_budget_is_used_up(make_runtime: Any, scripted_model: Any) -> None:
    runtime = make_runtime(budget={"session_usd": 0.25})
    sid = runtime.new_session().id
    runtime.store.add_call_cost(sid, "title", "openai/other", 0.30)  # spent before this prompt
    await runtime.prompt("one more", session_id=sid)
    await runtime.settle_titles()
    assert scripted_model.requests == [] and scripted_model.completions == []


async def test_sub_agent_sessions_count_toward_the_parent_budget(
    make_runtime: Any, scripted_model: Any
) -> None:
    """A ``task`` or ``@agent`` run is paid for the session that asked for it: its steps and its
    own sub-agents' titles count toward that session's budget."""
    runtime = make_runtime(budget={"session_usd": 0.25})
    sid = runtime.new_session().id
    child = runtime.new_session(parent_id=sid).id
    grandchild = runtime.new_session(parent_id=child).id
    user = runtime.add_user_message(child, "look around")
    runtime.recorder(child).message(
        AssistantMessage(
            id=ids.ascending("msg"),
            session_id=child,
            parent_id=user.id,
            agent="explore",
            model="openai/test",
            cost=0.20,
            finish="stop",
        )
    )
    runtime.store.add_call_cost(grandchild, "title", "openai/other", 0.10)
    runtime.store.add_call_cost(runtime.new_session().id, "title", "openai/other", 5.0)  # not its own
    assert runtime.recorder(sid).spent().usd == pytest.approx(0.30)
    await runtime.prompt("one more", session_id=sid)
    last = runtime.store.messages(sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is not None
    assert "session budget of $0.25 is used up (spent $0.3000" in last.error.message
    assert scripted_model.requests == []
