"""The kernel's side of live notebook edits: ``notebook_edit`` asks the side panel over the comm.

Each operation is one :class:`NotebookOpMsg` answered by one ``nb_reply``. Replies can
only arrive while the kernel's own loop runs (the agent working in the background); a
blocking run (``--wait``, headless) would wait forever, so it gets a clear error instead.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

from jupyter_agent.checkpoint.cells import CellStep
from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.staging import StagedEdit
from jupyter_agent.ui.panel_protocol import NotebookOpMsg, NotebookReply

OP_TIMEOUT_S = 30.0
RUN_TIMEOUT_S = 600.0
NOT_ON_LOOP = (
    "The notebook is open in JupyterLab, and live edits go through the side panel, which "
    "can only answer while the agent runs in the background. Run the prompt without --wait "
    "(or from the side panel)."
)


class PanelNotebookBridge:
    """Implements ``tools.services.NotebookBridge`` by asking the panel."""

    def __init__(self, send: Callable[[NotebookOpMsg], None], loop: asyncio.AbstractEventLoop | None) -> None:
        self._send = send
        self._loop = loop
        self._pending: dict[str, asyncio.Future[NotebookReply]] = {}
        self._ids = itertools.count(1)
        self.closed = False

    async def _ask(self, op: Any, timeout: float = OP_TIMEOUT_S, **fields: Any) -> NotebookReply:
        if self.closed:
            raise ToolError("The side panel closed; reopen it, or edit the notebook file with write/edit.")
        if asyncio.get_running_loop() is not self._loop:
            raise ToolError(NOT_ON_LOOP)
        op_id = f"op{next(self._ids)}"
        future: asyncio.Future[NotebookReply] = asyncio.get_running_loop().create_future()
        self._pending[op_id] = future
        try:
            self._send(NotebookOpMsg(op_id=op_id, op=op, **fields))
            reply = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            raise ToolError(
                f"The side panel did not answer the notebook {op} within {timeout:.0f} s."
            ) from None
        finally:
            self._pending.pop(op_id, None)
        if not reply.ok:
            raise ToolError(reply.error or f"The notebook {op} failed in the side panel.")
        return reply

    def resolve(self, reply: NotebookReply) -> None:
        """Called with each ``nb_reply`` from the panel."""
        future = self._pending.get(reply.op_id)
        if future is not None and not future.done():
            future.set_result(reply)

    def close(self) -> None:
        """The comm closed: waiting tools fail now instead of at their timeout."""
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ToolError("The side panel closed before it answered."))

    # ------------------------------------------------------------ NotebookBridge

    async def read_cells(self) -> list[dict[str, Any]]:
        return (await self._ask("read")).cells or []

    async def insert_cell(self, index: int, source: str, cell_type: str) -> str:
        reply = await self._ask("insert", index=index, source=source, cell_type=cell_type)
        return reply.cell_id or ""

    async def replace_cell(self, cell_id: str, source: str) -> None:
        await self._ask("replace", cell_id=cell_id, source=source)

    async def delete_cell(self, cell_id: str) -> None:
        await self._ask("delete", cell_id=cell_id)

    async def run_cell(self, cell_id: str) -> list[dict[str, Any]]:
        return (await self._ask("run", RUN_TIMEOUT_S, cell_id=cell_id)).outputs or []

    async def stage(self, edit: StagedEdit) -> str:
        """Show a proposed edit in the notebook; returns the cell it sits on (a new, empty
        placeholder for an insert)."""
        return (await self._ask("stage", staged=edit)).cell_id or edit.cell_id or ""

    async def unstage(self, staged_ids: list[str]) -> None:
        await self._ask("unstage", staged_ids=staged_ids)

    async def apply_steps(self, steps: list[CellStep]) -> tuple[list[str], list[str]]:
        """A revert's (or unrevert's) steps on the open document, in one go."""
        reply = await self._ask("restore", steps=steps)
        return reply.done or [], reply.problems or []
