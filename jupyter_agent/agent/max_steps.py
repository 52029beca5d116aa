"""The step cap (SPEC "Loop", max steps): the last allowed request forbids tools, and a
tool call in its answer is not run — the run ends with a clear error instead.

Without this a model that keeps calling tools after the notice loops forever. The loop
also never makes a call past ``steps`` + 1 (an overflow on the last step compacts and
may retry once; after that the run ends without calling the model).
"""

from __future__ import annotations

from jupyter_agent.core.messages import MessageError


def max_steps_message(max_steps: int) -> str:
    return (
        f"Maximum steps reached ({max_steps} model calls for this prompt): the tool was not run. "
        'Raise "steps" (or "agent.<name>.steps") in jupyter-agent.json to allow more, '
        "or send a new prompt to continue."
    )


def max_steps_error(max_steps: int) -> MessageError:
    """The error a run ends with: the model called a tool on its last allowed step, or the
    cap (plus one retry) is used up."""
    return MessageError(name="max_steps", message=max_steps_message(max_steps), metadata={"steps": max_steps})
