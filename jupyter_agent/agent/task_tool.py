"""``task``: run a sub-agent in its own child session and return its final answer.

The child gets a fresh context (only the prompt), so big searches never fill the
parent's window; the parent sees one tool result. ``@explore …`` prompts reuse this
through :func:`run_subtask`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from jupyter_agent.agent.agents import get_agent, subagents
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AssistantMessage,
    SubtaskPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolTimeCompleted,
    ToolTimeError,
    UserMessage,
)
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from jupyter_agent.agent.loop import AgentLoop
    from jupyter_agent.agent.runtime import Runtime


class TaskArgs(BaseModel):
    description: str = Field(description="A short (3-5 words) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str = Field(description="The type of specialized agent to use for this task")


async def run_child(runtime: Runtime, parent_id: str, agent: str, prompt: str) -> tuple[str, str]:
    """Run ``agent`` on ``prompt`` in a new child session; returns (session id, answer)."""
    child = runtime.new_session(parent_id=parent_id)
    child_id = await runtime.prompt(prompt, session_id=child.id, agent=agent)
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


class TaskTool(Tool[TaskArgs]):
    name = "task"
    Args = TaskArgs

    @property
    def description(self) -> str:  # type: ignore[override]
        lines = "\n".join(f"- {a.name}: {a.description}" for a in subagents())
        return (
            "Launch a sub-agent to handle a multi-step task in its own context window; "
            "only its final answer comes back to you. Use it for broad searches and for "
            "processing large files so your own context stays small.\n\n"
            f"Available agent types:\n{lines}\n\n"
            "Write a detailed, self-contained prompt and say exactly what to return."
        )

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        runtime: Runtime = ctx.extra["runtime"]
        try:
            info = get_agent(args.subagent_type)
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from None
        if info.mode != "subagent":
            names = ", ".join(a.name for a in subagents())
            raise ToolError(f"'{info.name}' is not a sub-agent. Use one of: {names}")
        await ctx.permit("task", [info.name], f"Run the {info.name} agent: {args.description}")
        ctx.progress(args.description)
        child_id, answer = await run_child(runtime, ctx.session_id, info.name, args.prompt)
        return ToolResult(
            output=f"{answer}\n\n<task_metadata>\nsession_id: {child_id}\n</task_metadata>",
            title=args.description,
            metadata={"session_id": child_id, "agent": info.name},
        )


async def run_subtask(loop: AgentLoop, task: SubtaskPart, user: UserMessage) -> None:
    """An ``@agent`` prompt: run it as a task call recorded in an assistant message."""
    rec = loop.recorder
    message = AssistantMessage(
        id=ids.ascending("msg"),
        session_id=user.session_id,
        parent_id=user.id,
        agent=user.agent,
        model=loop.settings.model,
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
    runtime: Runtime = loop.tool_env.extra["runtime"]
    try:
        child_id, answer = await run_child(runtime, user.session_id, task.agent, task.prompt)
        state: Any = ToolStateCompleted(
            input=inputs,
            output=answer,
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
