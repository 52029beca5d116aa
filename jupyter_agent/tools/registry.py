"""The tools a session can call, by name, with argument validation the model can learn from.

Every failure here is a :class:`ToolError` whose text is written for the model: it says
what was wrong and how to resend the call, so a malformed call costs one step, not the
session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from jupyter_agent.core import nesting, unicode
from jupyter_agent.core.chat import ToolSpec
from jupyter_agent.tools.base import Tool, ToolError

INVALID_ARGUMENTS = "The arguments provided to the tool are invalid: "
"""How a call whose arguments do not parse is answered (OpenCode's words); the call keeps its
tool name and its raw text (``{"raw": …}``), so the model and the user see what was sent."""


class ToolRegistry:
    """Tool instances by name, in registration order (the order the model sees them)."""

    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        """Add a tool; a tool with the same name is replaced (adapters override defaults)."""
        self._tools[tool.name] = tool

    def unregister(self, name: str) -> None:
        """Drop a tool (an MCP server's tools when it stops)."""
        self._tools.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool[Any]:
        if name not in self._tools:
            raise ToolError(f"Unknown tool '{name}'. Available tools: {', '.join(self._tools)}")
        return self._tools[name]

    def specs(self, names: Iterable[str] | None = None) -> list[ToolSpec]:
        """Function specs for the model; ``names`` restricts them (an agent's allowed tools)."""
        wanted = set(names) if names is not None else None
        return [t.spec() for n, t in self._tools.items() if wanted is None or n in wanted]

    def validate(self, name: str, raw_json: str) -> BaseModel:
        """Parse and validate arguments; errors say exactly what to fix and resend."""
        tool = self.get(name)
        try:
            data = nesting.loads(raw_json) if raw_json.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolError(
                f"{INVALID_ARGUMENTS}the JSON does not parse: {exc}. Resend the call with valid JSON."
            ) from None
        except nesting.TooDeep as exc:
            raise ToolError(
                f"{INVALID_ARGUMENTS}they are {exc}. Resend the call with flatter arguments."
            ) from None
        data = unicode.scrub_value(data)  # "\ud800" in the JSON: U+FFFD, not a crash later
        if not isinstance(data, dict):
            raise ToolError(
                f"Tool arguments must be a JSON object, got {type(data).__name__}; "
                f"resend the call as an object. {_expected(tool)}"
            )
        try:
            return tool.Args.model_validate(data)
        except ValidationError as exc:
            problems = "\n".join(
                f"- {'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolError(
                f"Invalid arguments for tool '{name}':\n{problems}\n{_expected(tool)} "
                "Resend the call with fixed arguments."
            ) from None


def _expected(tool: Tool[Any]) -> str:
    fields = tool.Args.model_fields
    listed = ", ".join(f"{n}{'' if f.is_required() else '?'}" for n, f in fields.items())
    return f"Expected parameters: {listed}."


def default_registry(project_root: Path | None = None) -> ToolRegistry:
    """File, search, shell, skill and todo tools, plus ``task``.

    Kernel tools (python, variables, notebook_*) are added by :func:`register_kernel_tools`.
    ``project_root`` only feeds the skill list in the ``skill`` tool's description.
    """
    # imported on first use: the tools' modules load when a registry is built, not when its type is named
    from jupyter_agent.tools.bash import BashTool
    from jupyter_agent.tools.edit import EditTool
    from jupyter_agent.tools.glob import GlobTool
    from jupyter_agent.tools.grep import GrepTool
    from jupyter_agent.tools.ls import ListTool
    from jupyter_agent.tools.read import ReadTool
    from jupyter_agent.tools.skill import SkillTool
    from jupyter_agent.tools.task import TaskTool
    from jupyter_agent.tools.todo import TodoWriteTool
    from jupyter_agent.tools.write import WriteTool

    return ToolRegistry(
        [
            ReadTool(),
            WriteTool(),
            EditTool(),
            GlobTool(),
            GrepTool(),
            ListTool(),
            BashTool(),
            TaskTool(),
            SkillTool(project_root),
            TodoWriteTool(),
        ]
    )


def register_kernel_tools(registry: ToolRegistry) -> None:
    """The tools that need the live kernel: python, variables, notebook_read/edit, verify_notebook."""
    # the kernel tools (IPython, nbformat) load only where a kernel registers them
    from jupyter_agent.tools.notebook import NotebookEditTool, NotebookReadTool
    from jupyter_agent.tools.python import PythonTool
    from jupyter_agent.tools.variables import VariablesTool
    from jupyter_agent.tools.verify_notebook import VerifyNotebookTool

    for tool in (PythonTool(), VariablesTool(), NotebookReadTool(), NotebookEditTool(), VerifyNotebookTool()):
        registry.register(tool)
