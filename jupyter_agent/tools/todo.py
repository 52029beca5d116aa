"""``todowrite``: the agent's own task list for multi-step work, shown to the user."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolResult


class Todo(BaseModel):
    content: str = Field(description="Brief description of the task")
    status: Literal["pending", "in_progress", "completed", "cancelled"]
    priority: Literal["high", "medium", "low"] = "medium"
    id: str = Field(description="Unique identifier for the todo item")


class TodoArgs(BaseModel):
    todos: list[Todo] = Field(description="The updated todo list")


class TodoWriteTool(Tool[TodoArgs]):
    name = "todowrite"
    description = (
        "Create and update your task list for multi-step work: send the whole list each time, "
        "with exactly one item in_progress while you work. Use it for tasks with 3 or more "
        "steps; skip it for simple requests."
    )
    Args = TodoArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        todos = [t.model_dump() for t in args.todos]
        ctx.extra.setdefault("todos", {})[ctx.session_id] = todos
        open_items = sum(1 for t in todos if t["status"] not in ("completed", "cancelled"))
        return ToolResult(
            output=json.dumps(todos, indent=2),
            title=f"{open_items} todos",
            metadata={"todos": todos},
        )
