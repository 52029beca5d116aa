"""``task``: run a sub-agent in its own child session and return its final answer.

The child gets a fresh context (only the prompt), so big searches never fill the
parent's window; the parent sees one tool result. The runtime runs the child
(``Services.run_child``, see ``agent/subtask.py``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.agents import get_agent, subagents
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult


class TaskArgs(BaseModel):
    description: str = Field(description="A short (3-5 words) description of the task")
    prompt: str = Field(description="The task for the agent to perform")
    subagent_type: str = Field(description="The type of specialized agent to use for this task")


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
        run_child = ctx.services.run_child
        if run_child is None:
            raise ToolError("Sub-agents are not available in this runtime.")
        try:
            info = get_agent(args.subagent_type)
        except KeyError as exc:
            raise ToolError(str(exc.args[0])) from None
        if info.mode != "subagent":
            names = ", ".join(a.name for a in subagents())
            raise ToolError(f"'{info.name}' is not a sub-agent. Use one of: {names}")
        await ctx.permit("task", [info.name], f"Run the {info.name} agent: {args.description}")
        ctx.progress(args.description)
        child_id, answer = await run_child(ctx.session_id, info.name, args.prompt)
        return ToolResult(
            output=task_output(child_id, answer),
            title=args.description,
            metadata={"session_id": child_id, "agent": info.name},
        )


def task_output(session_id: str, answer: str) -> str:
    """What the parent model reads of a finished sub-agent, in OpenCode's shape: the child
    session's id, then its final answer."""
    return f'<task id="{session_id}" state="completed">\n<task_result>\n{answer}\n</task_result>\n</task>'
