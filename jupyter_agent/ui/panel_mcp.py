"""The side panel's MCP list, its Restart, and the ``@`` completions it asks the kernel for.

A mixin of ``PanelConnection`` (``panel.py``): it uses the connection's agent, loop, sender
and notices. ``@server:`` naming a server that has not started yet starts it first, so its
resources can be offered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from jupyter_agent.kernel.completions import complete, needs_start
from jupyter_agent.mcp.listing import restart, snapshot, start
from jupyter_agent.ui import panel_protocol as wire

if TYPE_CHECKING:
    import asyncio

    from jupyter_agent.kernel.agent import KernelAgent


class PanelMcp:
    """MCP servers and completions for one panel connection."""

    agent: KernelAgent
    loop: asyncio.AbstractEventLoop | None

    def _send(self, message: wire.PanelMessage) -> None: ...
    def _flush_notices(self, level: Literal["info", "warn", "error"] = "warn") -> None: ...

    def _mcp(self, request: wire.McpRequest) -> None:
        """List the MCP servers; ``restart`` runs in the background, then lists them again."""
        runtime = self.agent.runtime
        if request.action == "list" or not runtime.config.mcp:
            self.send_mcp()
            return

        async def go() -> None:
            try:
                await restart(runtime)
            finally:
                self._flush_notices()
                self.send_mcp()

        self._start_task(go())

    def _start_task(self, work: Any) -> None:
        """Work on the kernel's loop beside the runs (an MCP restart, a start for a completion)."""
        if self.loop is None:
            work.close()
            return
        task = self.loop.create_task(work)
        self.agent.tasks.add(task)
        task.add_done_callback(self.agent.tasks.discard)

    def send_mcp(self) -> None:
        """The MCP servers' state and tools, as listed under the session picker."""
        servers = snapshot(self.agent.runtime) if self.agent.runtime.config.mcp else []
        self._send(wire.McpMsg(servers=[wire.McpServerView(**s) for s in servers]))

    def _complete(self, request: wire.CompleteRequest, started: bool = False) -> None:
        """``@`` completions; ``@server:`` of a server not started yet starts it first."""
        runtime = self.agent.runtime
        servers = runtime.services.mcp.servers if runtime.services.mcp else {}
        if not started and self.loop is not None and needs_start(request.query, servers, runtime.config.mcp):

            async def started_then_complete() -> None:
                await start(runtime)
                self._flush_notices()
                self.send_mcp()
                self._complete(request, started=True)

            self._start_task(started_then_complete())
            return
        found = complete(request.query, self.agent.shell, runtime.working_dir, servers)
        items = [wire.Completion(label=label, detail=detail) for label, detail in found]
        self._send(wire.CompletionsMsg(request_id=request.request_id, items=items))
