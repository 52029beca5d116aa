"""How a run ends with an error the user reads: on the answer in progress, or on a fresh
answer when no step ran (the step cap, a budget, a prompt too large to send)."""

from __future__ import annotations

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionErrored
from jupyter_agent.core.messages import AnyMessage, AssistantMessage, MessageError


def error_answer(user: AnyMessage, model: str) -> AssistantMessage:
    """An answer to ``user`` that only carries the error: no step ran."""
    return AssistantMessage(
        id=ids.ascending("msg"),
        session_id=user.session_id,
        parent_id=user.id,
        agent=user.agent,
        model=model,
        finish="error",
    )


def end_with_error(recorder: Recorder, answer: AssistantMessage, error: MessageError) -> None:
    """Store ``error`` on ``answer`` (completed now unless it already was) and tell the front ends.

    The answer's own finish stays: a step that finished and then crossed a budget is kept whole."""
    time = answer.time.model_copy(update={"completed": answer.time.completed or now_ms()})
    recorder.message(answer.model_copy(update={"error": error, "time": time}))
    recorder.bus.publish(SessionErrored(session_id=answer.session_id, error=error))
