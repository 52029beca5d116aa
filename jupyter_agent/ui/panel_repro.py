"""The side panel's reproducibility requests: "Add as cell", ``/verify`` and its Fix with agent.

Kept apart from ``panel.py`` (the connection itself): each function takes the connection.
Both long operations run as tasks on the kernel's loop, so the panel keeps answering;
Stop cancels a verification, whose kernel is then killed at once (``repro/runner.py``).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel.verification import verify
from jupyter_agent.kernel.verify_fix import verify_fix_prompt
from jupyter_agent.repro.report import VerifyReport
from jupyter_agent.tools.base import ToolError
from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.hidden_marker import run_message
from jupyter_agent.ui.widget_protocol import HiddenStateMsg, VerifyMsg, VerifyRowView

if TYPE_CHECKING:
    from jupyter_agent.ui.panel import PanelConnection

log = logging.getLogger(__name__)
ADDED = "The agent's code recorded in that run's transcript was added as a cell."


def _task(panel: PanelConnection, work: Any) -> asyncio.Task[Any] | None:
    loop = panel.loop
    if loop is None:  # no kernel loop (plain IPython): nothing could answer the panel anyway
        work.close()
        panel.stream.notice("This kernel has no running event loop; use %agent in a cell.", "error")
        return None
    task = loop.create_task(work)
    panel.agent.tasks.add(task)
    task.add_done_callback(panel.agent.tasks.discard)
    return task


def remark(panel: PanelConnection, session_id: str) -> None:
    """The session's runs that left hidden state, marked again (the panel reopened or switched)."""
    for run in panel.agent.hidden_runs.open_runs(session_id):
        panel.stream.post(run_message(panel.agent, run))


def add_cell(panel: PanelConnection, request: wire.AddCellRequest) -> None:
    """Insert the run's code as a cell below its cell, then mark the run "added" everywhere."""
    agent = panel.agent

    def added(new_id: str) -> None:
        run = agent.hidden_runs.runs.get(request.run)
        if run is None:  # a transcript of before a restart: its notebook's button must still learn it
            panel.stream.post(HiddenStateMsg(run=request.run, text=ADDED, names=[], code="", added=new_id))
        for other in list(agent.panels):
            if run is not None and other.stream.session_id == run.session_id:
                other.stream.post(run_message(agent, run))
        panel.stream.notice(
            "Added the agent's code as a cell below the run: Restart and Run All reproduces it now."
        )

    async def go() -> None:
        runtime = agent.runtime
        stage = runtime.stage_insert if runtime.config.notebook.review == "stage" else None
        try:
            new_id, _ = await agent.hidden_runs.add_as_cell(
                panel.bridge, request.run, request.cell_id, request.code, stage=stage, on_added=added
            )
        except (LookupError, ToolError) as exc:
            panel.stream.notice(f"Add as cell: {exc}", "error")
            return
        if new_id is None:
            panel.stream.notice("The agent's code is proposed as a cell below the run: Accept it to add it.")

    _task(panel, go())


def _rows(report: VerifyReport) -> list[VerifyRowView]:
    return [VerifyRowView(label=c.label, status=c.status, detail=c.detail()) for c in report.cells]


def start_verify(panel: PanelConnection, request: wire.VerifyRequest) -> None:
    """``/verify``: progress and then the table in the stream; Stop (:func:`stop`) ends it."""
    agent = panel.agent
    if panel.verifying is not None and not panel.verifying.done():
        panel.stream.notice("A verification is running already; Stop ends it.")
        return
    notebook = agent.notebook_path()
    if notebook is None:
        panel.stream.post(VerifyMsg(state="failed", text="No notebook is known for this kernel."))
        return

    def progress(text: str) -> None:
        panel.stream.post(VerifyMsg(state="running", text=f"Verifying {Path(notebook).name}: {text}"))

    async def go() -> None:
        panel.stream.status("busy")
        try:
            report = await verify(agent, Path(notebook), with_agent=request.with_agent, progress=progress)
        except asyncio.CancelledError:
            panel.stream.post(
                VerifyMsg(state="stopped", text="Verification stopped: its kernel was shut down.")
            )
            raise
        except JupyterAgentError as exc:  # the file cannot be read, its kernel is not installed
            panel.stream.post(VerifyMsg(state="failed", text=exc.for_user()))
        except Exception as exc:
            log.exception("verification from the side panel failed")
            panel.stream.post(VerifyMsg(state="failed", text=f"Error: {type(exc).__name__}: {exc}"))
        else:
            rows = _rows(report)
            panel.stream.post(
                VerifyMsg(state="done", text=report.summary(), rows=rows, reproducible=report.reproducible)
            )
        finally:
            panel.stream.status("idle")

    panel.verifying = _task(panel, go())


def stop(panel: PanelConnection) -> bool:
    """Stop a running verification; False when none runs."""
    task = panel.verifying
    if task is None or task.done():
        return False
    task.cancel()
    return True


def fix_verify(panel: PanelConnection) -> None:
    """Fix with agent on a verification's table: the report goes to the ``fix`` agent."""
    try:
        words, prompt = verify_fix_prompt(panel.agent.last_verify)
    except JupyterAgentError as exc:
        panel.stream.notice(exc.for_user(), "error")
        return
    panel.prompt(words, agent="fix", expanded=prompt)
