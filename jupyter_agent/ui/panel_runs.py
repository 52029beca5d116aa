"""The runs a side panel starts: a prompt (typed, or a Fix's), in the background on the
kernel's loop, every view of the session busy until it ends.

A mixin of ``PanelConnection`` (``panel.py``): it uses the connection's agent, loop, stream,
bridge and the model chosen in the panel.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jupyter_agent.agent import send
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.core import ids, unicode
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.fence import fence
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.kernel.mentions import expand_mentions
from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.hidden_marker import finish_run

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent
    from jupyter_agent.ui.notebook_bridge import PanelNotebookBridge
    from jupyter_agent.ui.stream import ViewStream

log = logging.getLogger(__name__)


class PanelRuns:
    """Prompts started from one panel connection."""

    agent: KernelAgent
    stream: ViewStream
    loop: asyncio.AbstractEventLoop | None
    bridge: PanelNotebookBridge
    model: str

    def show(self, session_id: str) -> None: ...
    def send_sessions(self) -> None: ...
    def send_mcp(self) -> None: ...

    def prompt(
        self,
        text: str,
        context: list[wire.ContextItem] | None = None,
        *,
        agent: str = "build",
        expanded: str | None = None,
        hidden: str | None = None,
        done: Callable[[], None] | None = None,
    ) -> None:
        """Run a prompt in the current session; ``expanded``: the whole prompt, already built
        (a fix, whose ``hidden`` instructions the model gets and the views do not show), else
        ``text`` with its mentions and the attached context."""
        bad = unicode.problem(text)
        if bad is not None:  # refused before a session or a message is written
            self.stream.notice(f"{bad}.", "error")
            if done is not None:
                done()
            return
        runtime = self.agent.refresh()  # settings changed since the last prompt apply from this one
        problem = send.problem(runtime, self.model or None, agent)
        if problem is not None:
            self.stream.notice(problem, "error")
            if done is not None:
                done()
            return
        sid = self.agent.current_session()
        if sid != self.stream.session_id:
            self.show(sid)
        if expanded is not None:
            prompt = expanded
        else:  # attached context is fenced like a mention: its text cannot close the block
            blocks = [fence("context", item.text, ref=item.label) for item in context or []]
            prompt = expand_mentions(text, self.agent) + "".join(f"\n\n{b}" for b in blocks)

        async def work() -> None:
            typed = text if expanded is None else None  # a fix's prompt names no resource
            asked = send.Prompt(
                prompt, sid, agent, self.model or None, self._handle(), instructions=hidden, typed=typed
            )
            await send.send(runtime, asked, self.stream.notice, on_ready=self.send_mcp)

        self._start(work(), sid, done)

    def _handle(self) -> RunHandle:
        """A run started here: the user answers approvals here, notebook edits go through here."""
        return RunHandle(interactive=True, bridge=self.bridge)

    def _start(self, work: Any, session_id: str, done: Callable[[], None] | None = None) -> None:
        """Run ``work`` on the kernel's loop in the background; every view of the session shows
        busy until it ends (also a panel that reconnected meanwhile: its Stop must end in idle)."""
        self.stream.status("busy")

        async def go() -> None:
            self.agent.notify_panels(session_id, True)
            mark = self.agent.hidden_runs.start()
            try:
                await work
            except asyncio.CancelledError:
                self.agent.stopped(self.stream, session_id)
            except JupyterAgentError as exc:  # an MCP prompt's typo, a refused resource: what to do
                self.stream.notice(exc.for_user(), "error")
            except Exception as exc:
                log.exception("agent run from the side panel failed")
                self.stream.notice(f"Error: {type(exc).__name__}: {exc}", "error")
            finally:
                if done is not None:
                    done()
                finish_run(self.agent, ids.ascending("msg"), session_id, mark, None)  # marks hidden state
                self.agent.notify_panels(session_id, False)
                self.send_sessions()
                self.send_mcp()

        loop = self.loop or running_loop()
        if loop is None:  # no kernel loop (plain IPython): nothing could answer the panel anyway
            work.close()
            if done is not None:
                done()
            self.stream.notice("This kernel has no running event loop; use %agent in a cell.", "error")
            self.stream.status("idle")
            return
        task = loop.create_task(go())
        self.agent.tasks.add(task)
        task.add_done_callback(self.agent.tasks.discard)
