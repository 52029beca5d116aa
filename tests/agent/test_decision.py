"""What the loop does next, decided without a model, a store or a loop (``agent/decision.py``)."""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from jupyter_agent.agent import loop as loop_module
from jupyter_agent.agent.budget import Budget
from jupyter_agent.agent.decision import (
    AutoCompact,
    Done,
    Idle,
    Next,
    OverBudget,
    Refuse,
    Rules,
    RunCompaction,
    RunSubtask,
    Step,
    StepCapReached,
    after_step,
    decide,
)
from jupyter_agent.context.latest import latest, pending_task
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.agents import get_agent
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    SubtaskPart,
    TextPart,
    Tokens,
    UserMessage,
)

SID = "ses_decide"


class Chars(TokenCounter):
    def count(self, text: str, key: str | None = None) -> int:
        return len(text)


def rules(**over: Any) -> Rules:
    base: dict[str, Any] = dict(
        context=1_000,
        usable=200,
        overflow=lambda t: t.input >= 200,
        agent=get_agent,
        max_steps=3,
        counter=Chars(),
    )
    return Rules(**{**base, **over})


def user(text: str = "hi", *parts: Any) -> MessageWithParts:
    mid = ids.ascending("msg")
    made = [TextPart(id=ids.ascending("prt"), session_id=SID, message_id=mid, text=text)] if text else []
    made += [p.model_copy(update={"message_id": mid}) for p in parts]
    return MessageWithParts(info=UserMessage(id=mid, session_id=SID), parts=made)


def answer(parent: MessageWithParts, **info: Any) -> MessageWithParts:
    mid = ids.ascending("msg")
    return MessageWithParts(
        info=AssistantMessage(id=mid, session_id=SID, parent_id=parent.info.id, **info), parts=[]
    )


def compaction() -> CompactionPart:
    return CompactionPart(id=ids.ascending("prt"), session_id=SID, message_id="", auto=False)


def test_latest_is_the_last_user_answer_and_finished_answer() -> None:
    u1 = user()
    a1 = answer(u1, finish="tool-calls")
    a2 = answer(u1)  # still streaming: no finish
    last = latest([u1, a1, a2])
    assert (last.user, last.assistant, last.finished) == (u1, a2, a1)
    assert latest([]).user is None


def test_a_task_with_an_answer_is_not_pending() -> None:
    asked = user("", compaction())
    assert isinstance(pending_task([asked], ""), CompactionPart)
    assert pending_task([asked, answer(asked, summary=True, finish="error")], "") is None


def test_no_prompt_is_idle_and_a_final_answer_is_done() -> None:
    assert decide([], 1, rules()) == Idle()
    u = user()
    assert decide([u, answer(u, finish="stop")], 2, rules()) == Done()
    assert isinstance(decide([u, answer(u, finish="tool-calls")], 2, rules()), Step)


def test_a_new_prompt_is_a_step_and_a_later_one_is_a_reminder() -> None:
    u = user()
    step = decide([u], 1, rules())
    assert isinstance(step, Step)
    assert (step.number, step.cap, step.new_prompt, step.remind_after, step.last) == (1, 3, True, None, False)
    calls = answer(u, finish="tool-calls")
    later = decide([u, calls], 3, rules())
    assert isinstance(later, Step) and later.last and later.remind_after == calls.info.id


def test_tasks_come_before_anything_else() -> None:
    sub = SubtaskPart(
        id=ids.ascending("prt"), session_id=SID, message_id="", agent="explore", prompt="p", description="d"
    )
    assert isinstance(decide([user("", sub)], 1, rules()), RunSubtask)
    asked = user("", compaction())
    assert decide([asked], 1, rules()) == RunCompaction(compaction_of(asked), asked)


def compaction_of(m: MessageWithParts) -> CompactionPart:
    part = m.parts[0]
    assert isinstance(part, CompactionPart)
    return part


def test_a_full_window_compacts_and_an_oversized_prompt_is_refused() -> None:
    u = user()
    full = answer(u, finish="tool-calls", tokens=Tokens(input=250))
    assert decide([u, full], 2, rules()) == AutoCompact(u.info)
    big = user("x" * 300)
    assert decide([big], 1, rules()) == Refuse(big, 300)
    assert isinstance(decide([big], 1, rules(usable=0)), Step)  # an unknown window refuses nothing


def test_the_cap_and_the_budget_end_the_run_before_a_call() -> None:
    u = user()
    calls = answer(u, finish="tool-calls")
    assert decide([u, calls], 5, rules()) == StepCapReached(u.info, 3)
    assert isinstance(decide([u, calls], 4, rules()), Step)  # the one retry after an overflow
    spent = rules(budget=Budget(session_usd=1.0), spent=lambda: CostTotal(usd=2.0, steps=1))
    stop = decide([u], 1, spent)
    assert isinstance(stop, OverBudget) and "session budget of $1" in stop.text
    assert isinstance(decide([u, calls], 2, spent), Step)  # mid-prompt: checked after the step


def test_after_a_step() -> None:
    u = user()
    step = decide([u], 1, rules())
    assert isinstance(step, Step)
    done = answer(u, finish="stop").info
    assert isinstance(done, AssistantMessage)
    assert after_step(step, "stop", done, False, [u], rules()) == Done()
    assert after_step(step, "continue", done, False, [u], rules()) == Next()
    assert after_step(step, "continue", done, True, [u], rules()) == StepCapReached(step.prompt, 3, done)
    unfinished = done.model_copy(update={"finish": None})
    replay = after_step(step, "compact", unfinished, False, [u], rules())
    assert replay == AutoCompact(step.prompt, overflow=True, replay_id=u.info.id)
    summary = answer(user(), summary=True, finish="stop")
    again = user("y" * 40)
    step = decide([summary, again], 1, rules())
    assert isinstance(step, Step)
    refused = after_step(step, "compact", unfinished, False, [summary, again], rules())
    assert refused == Refuse(again, 40, unfinished)


def test_run_is_one_match() -> None:
    """The loop applies decisions in one place; deciding is ``decide`` and ``after_step``."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(loop_module.AgentLoop.run)))
    assert sum(isinstance(n, ast.Match) for n in ast.walk(tree)) == 1
