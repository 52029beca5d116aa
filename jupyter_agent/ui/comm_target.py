"""Registers the ``jupyter_agent`` comm target at ``%load_ext`` (cheap: no pydantic yet).

The side panel opens a comm to this target; a kernel without the extension loaded
closes it at once, which tells the panel to offer ``%load_ext jupyter_agent``. Loading
the extension (from a cell or the panel) announces it, and the panel connects. A kernel no
front end serves (nbclient, papermill, ``jupyter console``) is not announced to: nobody
listens, and nbclient logs "No handler found for comm target" for it.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from jupyter_agent.tools.notebook_path import frontend_attached

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent

log = logging.getLogger(__name__)
TARGET = "jupyter_agent"
INLINE_TARGET = "jupyter_agent_inline"
"""The inline completion provider's comm (``ui/inline_comm.py``): light, one per kernel."""


def register(agent: KernelAgent) -> None:
    """Accept side-panel comms in this kernel (no-op outside a kernel)."""
    if getattr(agent.shell, "kernel", None) is None:
        return
    # the comm package is only needed inside a kernel
    from comm import get_comm_manager

    def opened(comm: Any, msg: dict[str, Any]) -> None:
        # the panel (pydantic, the view stream) loads when a panel connects, not at %load_ext
        from jupyter_agent.ui.panel import PanelConnection
        from jupyter_agent.ui.panel_protocol import HelloRequest

        connection = PanelConnection(comm, agent)
        data = msg.get("content", {}).get("data") or {}
        connection.open(HelloRequest.model_validate(data))

    def opened_inline(comm: Any, _msg: dict[str, Any]) -> None:
        # the inline completer loads when a front end first asks for a suggestion
        from jupyter_agent.ui.inline_comm import InlineConnection

        InlineConnection(comm, agent).open()

    get_comm_manager().register_target(TARGET, opened)
    get_comm_manager().register_target(INLINE_TARGET, opened_inline)
    if frontend_attached(agent.shell.user_ns, os.environ):  # a runner (nbclient) warns about it
        _announce()


def _announce() -> None:
    """Tell an open side panel that the extension is now loaded, so it connects by itself.

    A kernel→frontend comm to the same target name, closed at once; frontends without
    the panel close it themselves.
    """
    try:
        # the comm package is only needed inside a kernel
        from comm import create_comm

        create_comm(target_name=TARGET, data={"kind": "announce"}).close()
    except Exception:
        log.debug("could not announce jupyter-agent to the frontend", exc_info=True)
