"""``%agent verify`` in the user's kernel: the saved notebook run again in a fresh kernel.

The verification runs on a private event loop on this thread while the cell blocks, like a
``--wait`` prompt, so the notebook's interrupt button (■) raises ``KeyboardInterrupt``
here: the verification kernel's process group is killed at once, its channels closed, and
the cell ends with one line. The side panel and the ``verify_notebook`` tool run the same
:func:`verify` as a task on the kernel's loop, where Stop cancels it.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.kernel.hidden_state import live_hidden
from jupyter_agent.repro.outputs import Tolerance
from jupyter_agent.repro.report import VerifyReport
from jupyter_agent.repro.runner import CLOSE_TIMEOUT_S, Progress, Verification, VerifySettings

if TYPE_CHECKING:
    from jupyter_agent.config import Config
    from jupyter_agent.kernel.agent import KernelAgent

METADATA_KEY = "jupyter_agent"
FIX_HINT = "Fix with agent: %agent fix verify (the agent gets this report)."


class VerifyStopped(JupyterAgentError):
    """The user stopped a verification: one line, no traceback (as ``AgentRunError``)."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]


def settings_from(config: Config, *, with_agent: bool = False, kernel: str | None = None) -> VerifySettings:
    box = config.verify
    return VerifySettings(
        cell_timeout=box.cell_timeout,
        timeout=box.timeout,
        with_agent=with_agent,
        kernel=kernel,
        tolerance=Tolerance(float_rel=box.float_tolerance),
    )


def _config(agent: KernelAgent, notebook: Path) -> Config:
    if agent._runtime is not None:
        return agent.refresh().config
    # pydantic's config model loads on the first %agent anyway
    from jupyter_agent.config import load_config

    return load_config(notebook.parent)


def verification(
    agent: KernelAgent,
    notebook: Path,
    *,
    with_agent: bool = False,
    kernel: str | None = None,
    progress: Progress | None = None,
) -> Verification:
    settings = settings_from(_config(agent, notebook), with_agent=with_agent, kernel=kernel)
    return Verification(notebook, settings, progress=progress, live_hidden=live_hidden(agent.hidden))


def _annotate(report: VerifyReport, agent: KernelAgent) -> VerifyReport:
    state = agent.hidden.hidden()
    if state:
        report.warnings.append(
            f"This kernel holds state the notebook does not reproduce: {state.sentence()} "
            '("Add as cell" on the run\'s marker puts that code in the notebook.)'
        )
    agent.last_verify = report
    return report


async def verify(
    agent: KernelAgent, notebook: Path, *, with_agent: bool = False, progress: Progress | None = None
) -> VerifyReport:
    """On the kernel's loop (the panel, the tool): cancelling the task stops it."""
    report = await verification(agent, notebook, with_agent=with_agent, progress=progress).run()
    return _annotate(report, agent)


def verify_blocking(
    agent: KernelAgent, notebook: Path, *, with_agent: bool, kernel: str | None, progress: Progress
) -> VerifyReport:
    """In a cell: blocks; the kernel's interrupt stops it within ``CLOSE_TIMEOUT_S``."""
    run = verification(agent, notebook, with_agent=with_agent, kernel=kernel, progress=progress)
    outer = running_loop()
    events = asyncio.events
    loop = asyncio.new_event_loop()
    events._set_running_loop(None)  # the kernel's loop is paused while the cell blocks
    task = loop.create_task(run.run())
    try:
        report = loop.run_until_complete(task)
    except KeyboardInterrupt:
        run.kill_now()
        task.cancel()
        with contextlib.suppress(BaseException):
            loop.run_until_complete(asyncio.wait([task], timeout=CLOSE_TIMEOUT_S))
        raise VerifyStopped("Verification stopped: its kernel was shut down.") from None
    finally:
        with contextlib.suppress(Exception):
            loop.close()
        events._set_running_loop(outer)
    return _annotate(report, agent)


def report_bundle(report: VerifyReport) -> tuple[dict[str, str], dict[str, Any]]:
    """The table a cell shows, and the metadata the labextension's "Fix with agent" reads."""
    plain = report.text() + ("" if report.reproducible else "\n" + FIX_HINT)
    first = report.first_divergence()
    meta = {
        "verify": {
            "notebook": report.notebook,
            "reproducible": report.reproducible,
            "first": first.label if first else None,
        }
    }
    return {"text/html": report.html(), "text/plain": plain}, {METADATA_KEY: meta}
