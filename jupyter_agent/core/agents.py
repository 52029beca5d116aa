"""The agents: who answers, with which prompt, tools and permissions.

``build`` does the work; ``fix`` mends a cell that raised and asks before replacing it;
``plan`` may only read; ``explore`` and ``general`` are run by
the ``task`` tool in a child session; ``compaction`` and ``title`` are hidden helpers
that never see tools. Config ``agent.<name>`` may override model, prompt, steps and
permissions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from jupyter_agent.core.errors import NameNotFound

Mode = Literal["primary", "subagent", "hidden"]

EDIT_TOOLS = frozenset({"write", "edit", "notebook_edit"})
READ_ONLY_TOOLS = frozenset(
    {"read", "glob", "grep", "list", "variables", "notebook_read", "skill", "todowrite"}
)
CHILD_WITHHELD = frozenset({"task", "todowrite"})
"""Never offered in a child session (as OpenCode): a sub-agent starts no sub-agents (no
recursion, no runaway cost) and does not rewrite the todo list the user reads in the parent."""


class AgentOverrides(Protocol):
    """What config ``agent.<name>`` may change (``config_model.AgentConfig`` fits); named here
    so the catalogue stays below the tools that list it (the ``task`` tool)."""

    @property
    def model(self) -> str | None: ...
    @property
    def prompt(self) -> str | None: ...
    @property
    def steps(self) -> int | None: ...
    @property
    def permission(self) -> Mapping[str, Any] | None: ...


class UnknownAgent(NameNotFound):
    """An agent name that does not exist or cannot take prompts; the message lists the agents."""

    missing = "unknown agent"


class AgentInfo(BaseModel):
    name: str
    mode: Mode
    description: str
    prompt: str
    """Name of the prompt file under ``prompts/`` (or literal text from config)."""
    tools: frozenset[str] | None = None
    """Tools offered; ``None`` means every registered tool."""
    model: str | None = None
    steps: int | None = None
    permission: dict[str, Any] = Field(default_factory=dict)
    """Built-in permission rules, merged under config rules."""


_PLAN_BASH = {
    # matched per simple command of the parsed line; "bash_write" also asks for any
    # command that is not read-only (redirections into files, writing options …)
    "*": "ask",
    "ls*": "allow",
    "cat *": "allow",
    "head *": "allow",
    "tail *": "allow",
    "wc *": "allow",
    "pwd": "allow",
    "git status*": "allow",
    "git diff*": "allow",
    "git log*": "allow",
    "grep *": "allow",
    "rg *": "allow",
}

BUILTIN: dict[str, AgentInfo] = {
    "build": AgentInfo(
        name="build",
        mode="primary",
        description="The default agent: runs code in the kernel, edits cells and files.",
        prompt="build",
    ),
    "plan": AgentInfo(
        name="plan",
        mode="primary",
        description="Read-only analysis and planning: no file or notebook edits.",
        prompt="plan",
        permission={
            "edit": "deny",
            "write": "deny",
            "notebook_edit": "deny",
            "bash": _PLAN_BASH,
            "bash_write": "ask",
            "mcp_write": "deny",  # MCP tools whose server does not mark them readOnlyHint
            "python": "ask",
            "verify_notebook": "ask",  # it runs the notebook's code
            # a sub-agent that may write (general) would be a way around read-only
            "task": {"*": "ask", "explore": "allow"},
        },
    ),
    "fix": AgentInfo(
        name="fix",
        mode="primary",
        description="Fixes a cell that raised (Fix with agent): replacing the cell asks first.",
        prompt="build",
        # the user approves the new cell before it replaces theirs and runs
        permission={"notebook_edit": "ask"},
    ),
    "explore": AgentInfo(
        name="explore",
        mode="subagent",
        description=(
            "Fast read-only agent for finding files, searching code and answering "
            "questions about the project. Give it a precise question."
        ),
        prompt="explore",
        tools=READ_ONLY_TOOLS - {"todowrite"} | {"bash"},
        permission={
            "edit": "deny",
            "write": "deny",
            "notebook_edit": "deny",
            "bash": _PLAN_BASH,
            "bash_write": "ask",
            "mcp_write": "deny",
        },
    ),
    "general": AgentInfo(
        name="general",
        mode="subagent",
        description="General-purpose agent for multi-step research or work in its own context.",
        prompt="general",
        permission={"todowrite": "deny"},
    ),
    "compaction": AgentInfo(
        name="compaction",
        mode="hidden",
        description="Writes the anchored summary of a session.",
        prompt="compaction",
        tools=frozenset(),
    ),
    "title": AgentInfo(
        name="title",
        mode="hidden",
        description="Names a session after its first exchange.",
        prompt="title",
        tools=frozenset(),
    ),
}


PROMPTABLE = tuple(name for name, info in BUILTIN.items() if info.mode != "hidden")
"""The agents a prompt may be sent to (``--agent``), in the order they are listed."""
SUBTASK_AGENTS = tuple(name for name, info in BUILTIN.items() if info.mode == "subagent")
"""The agents ``@name …`` runs as a subtask (the ``task`` tool's ``subagent_type``)."""


def get_agent(name: str, config: AgentOverrides | None = None) -> AgentInfo:
    """The agent ``name`` with config ``agent.<name>`` applied; unknown names raise."""
    if name not in BUILTIN:
        raise UnknownAgent(f"Unknown agent '{name}'. Available agents: {', '.join(PROMPTABLE)}")
    info = BUILTIN[name]
    if config is None:
        return info
    set_fields = {"model": config.model, "prompt": config.prompt, "steps": config.steps}
    update: dict[str, Any] = {k: v for k, v in set_fields.items() if v}
    if config.permission:
        update["permission"] = {**info.permission, **config.permission}
    return info.model_copy(update=update)


def runnable_agent(name: str) -> AgentInfo:
    """An agent a prompt may be sent to: hidden helpers (compaction, title) are not."""
    info = get_agent(name)
    if info.mode == "hidden":
        raise UnknownAgent(
            f"'{name}' is an internal agent and cannot take prompts. "
            f"Available agents: {', '.join(PROMPTABLE)}"
        )
    return info


def offered_tools(agent: AgentInfo, registered: Iterable[str], *, child: bool) -> frozenset[str] | None:
    """The tools ``agent`` is offered (None: every registered one); ``child``: the session
    is a sub-agent's, which never gets ``CHILD_WITHHELD``."""
    if not child:
        return agent.tools
    base = agent.tools if agent.tools is not None else frozenset(registered)
    return base - CHILD_WITHHELD


def subagents() -> list[AgentInfo]:
    return [a for a in BUILTIN.values() if a.mode == "subagent"]
