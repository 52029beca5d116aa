"""The side panel's Undo from here / Unrevert and review decisions: work on the kernel's loop.

Undo from here reverts the session shown to before a prompt: files, variables and messages
at once, the notebook's cells through this panel's own bridge; the report (what was put back,
what could not be and why) ends the redrawn stream, with Unrevert after a revert.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.widget_protocol import RevertedMsg

if TYPE_CHECKING:
    from jupyter_agent.ui.panel import PanelConnection

log = logging.getLogger(__name__)


def revert_here(panel: PanelConnection, request: wire.RevertRequest | wire.UnrevertRequest) -> None:
    runtime, sid = panel.agent.runtime, panel.stream.session_id
    undo = isinstance(request, wire.RevertRequest)
    if isinstance(request, wire.RevertRequest):
        reverting = runtime.revert(sid, request.message_id, panel.bridge)
    else:
        reverting = runtime.unrevert(sid, panel.bridge)
    panel.agent.session_changed(sid)

    async def finish() -> None:
        report = await reverting.finish()
        panel.stream.post(RevertedMsg(text=report.text("Unrevert"), unrevert=undo))

    background(panel, finish(), "the revert")


def background(panel: PanelConnection, work: Coroutine[Any, Any, Any], what: str) -> None:
    """Run ``work`` on the kernel's loop; a failure is said in the panel's stream."""

    async def go() -> None:
        try:
            await work
        except JupyterAgentError as exc:
            panel.stream.notice(exc.for_user(), "error")
        except Exception as exc:
            log.exception("side panel: %s failed", what)
            panel.stream.notice(f"{what[0].upper()}{what[1:]} failed: {type(exc).__name__}: {exc}", "error")

    loop = panel.loop or running_loop()
    if loop is None:
        work.close()
        return
    task = loop.create_task(go())
    panel.agent.tasks.add(task)
    task.add_done_callback(panel.agent.tasks.discard)
