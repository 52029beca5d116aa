"""What tools use beyond files and processes: the typed services of one runtime.

One field per dependency (the kernel's shell, the notebook bridge, the session runner, MCP …)
instead of a string-keyed dict, so a reader and the type checker see who needs what. The
runtime owns one ``Services``; each run hands tools a copy carrying that run's notebook bridge.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from jupyter_agent.tools.protected import Guard
from jupyter_agent.tools.sandbox import SandboxPolicy
from jupyter_agent.tools.staging import StagedEdit, Staging

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from jupyter_agent.checkpoint.cells import CellStep
    from jupyter_agent.repro.report import VerifyReport
    from jupyter_agent.repro.tracker import HiddenStateTracker


class NotebookBridge(Protocol):
    """What the side panel offers over its comm (see ``ui/notebook_bridge.py``)."""

    async def read_cells(self) -> list[dict[str, Any]]: ...
    async def insert_cell(self, index: int, source: str, cell_type: str) -> str: ...
    async def replace_cell(self, cell_id: str, source: str) -> None: ...
    async def delete_cell(self, cell_id: str) -> None: ...
    async def run_cell(self, cell_id: str) -> list[dict[str, Any]]: ...
    async def stage(self, edit: StagedEdit) -> str: ...
    async def unstage(self, staged_ids: list[str]) -> None: ...
    async def apply_steps(self, steps: list[CellStep]) -> tuple[list[str], list[str]]: ...


class McpHost(Protocol):
    """The runtime's MCP servers as the services share them: ``mcp/manager.py``'s ``McpManager``
    fits. No tool uses them (MCP tools hold their manager), so only the servers are named here,
    and the MCP package, above the tools, is not imported; ``mcp.manager.manager_of`` gives
    the manager back typed."""

    @property
    def servers(self) -> Mapping[str, Any]: ...


ChildRunner = Callable[[str, str, str], Awaitable[tuple[str, str]]]
"""``run_child(parent_session_id, agent, prompt)`` → (child session id, final answer)."""

RuleCheck = Callable[..., str]
"""``rule(agent, permission, value, session_id, specific=False)`` → "allow" | "ask" | "deny",
without asking (``specific``: only patterns naming something count, not ``"*"``)."""

Todos = dict[str, list[dict[str, Any]]]

NotebookVerifier = Callable[[Path | None, bool, Callable[[str], None]], Awaitable["VerifyReport"]]
"""``verify(notebook, with_agent, progress)``: the notebook (None: the kernel's) run again in a
fresh kernel (``repro/``)."""


@dataclass
class Services:
    """The runtime's adapters that tools (and front ends) share."""

    shell: InteractiveShell | None = None
    """The kernel's IPython shell: ``python`` and ``variables`` run in its namespace."""
    kernel: str | None = None
    """The kind of kernel ("contained", "ordinary"; ``tools/kernel_kind.py``), None outside one."""
    notebook_bridge: NotebookBridge | None = None
    """Live notebook edits through a side panel; set per run (see ``agent/run.py``)."""
    notebook_path: Path | None = None
    """The notebook file to edit on disk when the kernel does not name one."""
    todos: Todos = field(default_factory=dict)
    """``todowrite`` lists by session id."""
    notices: list[str] = field(default_factory=list)
    """Warnings for the next view (store moved, MCP server failed …), taken by the front ends."""
    mcp: McpHost | None = None
    """The MCP servers, started on the first prompt when configured."""
    run_child: ChildRunner | None = None
    """Runs a sub-agent in a child session (the ``task`` tool, ``@agent`` prompts)."""
    permission_rule: RuleCheck | None = None
    """What the permission rules say about a value (search tools hide what ``read`` denies)."""
    guard: Guard = field(default_factory=Guard)
    """Protected paths (writes always ask) and hidden credential stores (``tools/protected.py``)."""
    sandbox: SandboxPolicy = field(default_factory=SandboxPolicy)
    """How ``bash`` commands are confined (``tools/sandbox.py``)."""
    hidden_state: HiddenStateTracker | None = None
    """The kernel's record of names the agent's ``python`` code set that no cell reproduces."""
    verify_notebook: NotebookVerifier | None = None
    """Runs a saved notebook in a fresh kernel for ``verify_notebook`` (set by the kernel)."""
    require_contained: bool = False
    """The administrator requires a contained kernel: in an ordinary one the tools that run
    code refuse (``require_contained_kernel``, ``tools/kernel_kind.py``)."""
    admin_file: str | None = None
    """The administrator's file, named in those refusals."""
    outputs: Path | None = None
    """Where truncated outputs are saved: reading them is not "outside the project", wherever
    the store is (``store``, a read-only folder's)."""
    audit: Callable[[dict[str, Any]], None] | None = None
    """Writes one line of the admin's audit trail per tool call (``storage/audit_log.py``)."""
    notebook_review: Literal["stage", "apply"] = "stage"
    """``notebook.review``: live cell edits are staged for Accept / Reject, or applied at once."""
    staging: Staging = field(default_factory=Staging)
    """The staged cell edits waiting for the user (``tools/staging.py``)."""

    def for_run(self, bridge: NotebookBridge | None) -> Services:
        """A copy for one run: its own notebook bridge, everything else shared."""
        return dataclasses.replace(self, notebook_bridge=bridge)
