"""``todowrite``: the agent's own task list for multi-step work, shown to the user.

The list is replaced whole on every call (no merge rules to get wrong) and kept in
``ctx.services.todos[session_id]``, shared by every run of the runtime.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolResult
from jupyter_agent.tools.descriptions import describe


class Todo(BaseModel):
    content: str = Field(description="Brief description of the task")
    status: Literal["pending", "in_progress", "completed", "cancelled"] = Field(
        description="Current status of the task: pending, in_progress, completed, cancelled"
    )
    priority: Literal["high", "medium", "low"] = Field(
        default="medium", description="Priority level of the task: high, medium, low"
    )
    id: str = Field(description="Unique identifier for the todo item")


class TodoArgs(BaseModel):
    todos: list[Todo] = Field(description="The updated todo list")


class TodoWriteTool(Tool[TodoArgs]):
    name = "todowrite"
    mutates = False
    description = describe("todowrite")
    Args = TodoArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        todos = [t.model_dump() for t in args.todos]
        ctx.services.todos[ctx.session_id] = todos
        # like OpenCode: the title counts what is not completed yet
        remaining = sum(1 for t in todos if t["status"] != "completed")
        return ToolResult(
            output=json.dumps(todos, indent=2),
            title=f"{remaining} todos",
            metadata={"todos": todos},
        )
