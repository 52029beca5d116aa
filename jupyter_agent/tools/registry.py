"""The tools a session can call, by name, with argument validation the model can learn from."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ValidationError

from jupyter_agent.tools.base import Tool, ToolError


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        self._tools[tool.name] = tool
        self._specs: dict[str, dict[str, Any]] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool[Any]:
        if name not in self._tools:
            raise ToolError(f"Unknown tool '{name}'. Available tools: {', '.join(self._tools)}")
        return self._tools[name]

    def specs(self, names: Iterable[str] | None = None) -> list[dict[str, Any]]:
        wanted = set(names) if names is not None else None
        if not getattr(self, "_specs", None):
            self._specs = {n: t.spec() for n, t in self._tools.items()}  # schemas built once
        return [self._specs[n] for n in self._tools if wanted is None or n in wanted]

    def validate(self, name: str, raw: str) -> BaseModel:
        """Parse and validate arguments; errors say exactly what to fix and resend."""
        tool = self.get(name)
        try:
            data = json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"Invalid JSON in tool arguments: {exc.msg} at position {exc.pos}. "
                "Resend the call with valid JSON arguments."
            ) from None
        if not isinstance(data, dict):
            raise ToolError("Tool arguments must be a JSON object. Resend the call.")
        try:
            return tool.Args.model_validate(data)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolError(
                f"Invalid arguments for tool '{name}': {problems}. Resend the call with fixed arguments."
            ) from None


def default_registry() -> ToolRegistry:
    """File, search and shell tools plus ``task``; kernel tools are added by the magics."""
    from jupyter_agent.agent.task_tool import TaskTool
    from jupyter_agent.tools.bash import BashTool
    from jupyter_agent.tools.edit import EditTool
    from jupyter_agent.tools.glob import GlobTool
    from jupyter_agent.tools.grep import GrepTool
    from jupyter_agent.tools.ls import ListTool
    from jupyter_agent.tools.read import ReadTool
    from jupyter_agent.tools.skill import SkillTool
    from jupyter_agent.tools.todo import TodoWriteTool
    from jupyter_agent.tools.write import WriteTool

    return ToolRegistry(
        [ReadTool(), WriteTool(), EditTool(), GlobTool(), GrepTool(), ListTool(), BashTool(),
         TaskTool(), SkillTool(), TodoWriteTool()]
    )


def register_kernel_tools(registry: ToolRegistry) -> None:
    """The tools that need the live kernel: python, variables, notebook_read/edit."""
    from jupyter_agent.tools.notebook import NotebookEditTool, NotebookReadTool
    from jupyter_agent.tools.python import PythonTool
    from jupyter_agent.tools.variables import VariablesTool

    for tool in (PythonTool(), VariablesTool(), NotebookReadTool(), NotebookEditTool()):
        registry.register(tool)
