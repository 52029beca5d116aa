"""The step cap (SPEC "Loop", max steps): the last allowed request forbids tools, and a
tool call in its answer is not run — the run ends with a clear error instead.

Without this a model that keeps calling tools after the notice loops forever. The loop
also never makes a call past ``steps`` + 1 (an overflow on the last step compacts and
may retry once; after that the run ends here, without calling the model).
"""

from __future__ import annotations

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionErrored
from jupyter_agent.core.messages import AssistantMessage, MessageError, UserMessage


def max_steps_message(max_steps: int) -> str:
    return (
        f"Maximum steps reached ({max_steps} model calls for this prompt): the tool was not run. "
        'Raise "steps" (or "agent.<name>.steps") in jupyter-agent.json to allow more, '
        "or send a new prompt to continue."
    )


def fail_max_steps(recorder: Recorder, message: AssistantMessage, max_steps: int) -> MessageError:
    """End the run: the model called a tool on its last allowed step."""
    error = MessageError(
        name="max_steps", message=max_steps_message(max_steps), metadata={"steps": max_steps}
    )
    time = message.time.model_copy(update={"completed": message.time.completed or now_ms()})
    recorder.message(message.model_copy(update={"error": error, "time": time}))
    recorder.bus.publish(SessionErrored(session_id=message.session_id, error=error))
    return error


def refuse_step(recorder: Recorder, user: UserMessage, model: str, max_steps: int) -> MessageError:
    """End the run without calling the model: the cap (plus one retry) is used up."""
    answer = AssistantMessage(
        id=ids.ascending("msg"),
        session_id=user.session_id,
        parent_id=user.id,
        agent=user.agent,
        model=model,
        finish="error",
    )
    return fail_max_steps(recorder, answer, max_steps)
