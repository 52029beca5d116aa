"""Sub-agents in child sessions: the ``task`` tool's runner and ``@agent`` prompts.

The child gets a fresh context (only the prompt), so big searches never fill the
parent's window; the parent sees one tool result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AssistantMessage,
    Session,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolTimeCompleted,
    ToolTimeError,
    UserMessage,
)
from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.services import ChildRunner
from jupyter_agent.tools.task import task_output

if TYPE_CHECKING:
    from jupyter_agent.agent.recorder import Recorder
    from jupyter_agent.agent.run import RunHandle


class ChildHost(Protocol):
    """What a child run needs of the runtime (``compose.py`` passes the ``Runtime``); named
    here so that the loop, which runs ``@agent`` prompts, does not depend on the runtime."""

    def new_session(self, *, parent_id: str | None) -> Session: ...

    def run_handle(self, session_id: str) -> RunHandle | None: ...

    async def prompt(self, text: str, *, session_id: str, agent: str, handle: RunHandle | None) -> str: ...

    def recorder(self, session_id: str) -> Recorder: ...


async def run_child(runtime: ChildHost, parent_id: str, agent: str, prompt: str) -> tuple[str, str]:
    """Run ``agent`` on ``prompt`` in a new child session; returns (session id, answer)."""
    child = runtime.new_session(parent_id=parent_id)
    parent = runtime.run_handle(parent_id)
    handle = parent.child() if parent is not None else None
    child_id = await runtime.prompt(prompt, session_id=child.id, agent=agent, handle=handle)
    history = runtime.recorder(child_id).history()
    answer = ""
    for m in reversed(history):
        if isinstance(m.info, AssistantMessage):
            if m.info.error is not None and not answer:
                raise ToolError(f"The {agent} agent failed: {m.info.error.message}")
            answer = "".join(p.text for p in m.parts if isinstance(p, TextPart)).strip()
            if answer:
                break
    return child_id, answer


async def run_subtask(
    rec: Recorder, model: str, task: SubtaskPart, user: UserMessage, run: ChildRunner
) -> None:
    """An ``@agent`` prompt: run it as a task call recorded in an assistant message."""
    message = AssistantMessage(
        id=ids.ascending("msg"),
        session_id=user.session_id,
        parent_id=user.id,
        agent=user.agent,
        model=model,
    )
    rec.message(message)
    start = now_ms()
    inputs = {"description": task.description, "prompt": task.prompt, "subagent_type": task.agent}
    part = ToolPart(
        id=ids.ascending("prt"),
        session_id=user.session_id,
        message_id=message.id,
        call_id=ids.ascending("call"),
        tool="task",
    )
    try:
        child_id, answer = await run(user.session_id, task.agent, task.prompt)
        state: Any = ToolStateCompleted(
            input=inputs,
            output=task_output(child_id, answer),
            title=task.description,
            metadata={"session_id": child_id, "agent": task.agent},
            time=ToolTimeCompleted(start=start),
        )
    except ToolError as exc:
        state = ToolStateError(input=inputs, error=str(exc), time=ToolTimeError(start=start))
    rec.part(part.model_copy(update={"state": state}))
    # finish "tool-calls" lets the loop continue so the main agent reads the result.
    rec.message(
        message.model_copy(
            update={"finish": "tool-calls", "time": message.time.model_copy(update={"completed": now_ms()})}
        )
    )
