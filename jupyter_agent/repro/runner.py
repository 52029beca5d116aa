"""Run a saved notebook top to bottom in a fresh kernel and judge each cell (``%agent verify``).

The notebook file is read once and never written: cells run in a working copy, in a new
kernel of the notebook's kernelspec started in the notebook's folder (nbclient). The
user's kernel and notebook are untouched. Stopping (a cancelled task, Ctrl-C, the kernel's
interrupt in a blocking cell) kills the verification kernel's whole process group at once,
so nothing it started outlives it. nbclient's own kernel setup is not used: it installs
SIGINT/SIGTERM handlers on the running loop and would leave them in the user's kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.repro.judge import judge, skipped
from jupyter_agent.repro.outputs import Tolerance
from jupyter_agent.repro.report import CellReport, VerifyReport
from jupyter_agent.repro.static import CellFacts, analyse_notebook, is_verify_cell, source_of

CLOSE_TIMEOUT_S = 1.5
"""How long closing the kernel's channels may take after the kill (Stop answers within 2 s)."""

Progress = Callable[[str], None]
NESTED = "JUPYTER_AGENT_VERIFYING"
"""Set in a verification kernel's environment: it never verifies again (``--with-agent``)."""


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


class NotebookUnusable(UsageFailure):
    """The notebook cannot be read, or its kernel is not installed: the message says which."""


@dataclass(frozen=True)
class VerifySettings:
    cell_timeout: float = 600.0
    """Seconds one cell may run (``verify.cell_timeout``)."""
    timeout: float = 3600.0
    """Seconds the whole verification may take (``verify.timeout``)."""
    with_agent: bool = False
    """Replay ``%agent`` cells too (they ask the model again)."""
    kernel: str | None = None
    """A kernelspec name instead of the notebook's."""
    tolerance: Tolerance = field(default_factory=Tolerance)
    startup_timeout: float = 60.0


def read_notebook(path: Path) -> Any:
    # nbformat (and its JSON Schema) loads only when a notebook is verified
    import nbformat

    if not path.is_file():
        raise NotebookUnusable(f"No notebook at {path}: check the path (verify reads the saved .ipynb file).")
    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises JSON, validation and reader errors alike
        raise NotebookUnusable(
            f"{path} is not a notebook nbformat can read ({type(exc).__name__}: {exc})."
        ) from None
    return nb


def load_nbclient() -> None:
    # nbclient loads only when a notebook is verified
    import nbclient  # noqa: F401


def kernel_name(nb: Any, settings: VerifySettings) -> tuple[str, list[str]]:
    """The kernelspec to start and any warning about how it was chosen."""
    # jupyter_client loads only when a notebook is verified
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    recorded = ((nb.metadata or {}).get("kernelspec") or {}).get("name")
    name = settings.kernel or recorded or "python3"
    warnings = (
        [] if settings.kernel or recorded else ["The notebook records no kernelspec: verified with python3."]
    )
    try:
        KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        raise NotebookUnusable(
            f"The notebook's kernel {name!r} is not installed here: pass --kernel NAME "
            "(`jupyter kernelspec list` shows the installed ones)."
        ) from None
    return name, warnings


class Verification:
    """One verification; :meth:`run` once, :meth:`kill_now` from anywhere to stop it."""

    def __init__(
        self,
        path: Path,
        settings: VerifySettings | None = None,
        *,
        progress: Progress | None = None,
        live_hidden: Mapping[str, str] | None = None,
    ) -> None:
        self.path = Path(path).resolve()
        self.settings = settings or VerifySettings()
        self.progress = progress or (lambda _text: None)
        self.live_hidden = dict(live_hidden or {})
        """Names the agent's code changed in the user's kernel → why (from its tracker)."""
        self._client: Any = None
        self._pgid: int | None = None

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["JUPYTER_AGENT_NOTEBOOK"] = str(self.path)  # `%agent` replays find their notebook
        env[NESTED] = "1"
        for name in ("JPY_SESSION_NAME", "JUPYTER_AGENT_BACKGROUND"):  # no front end shows this kernel
            env.pop(name, None)
        return env

    async def run(self) -> VerifyReport:
        if os.environ.get(NESTED):  # a replayed %agent cell asking to verify: kernels without end
            raise NotebookUnusable(
                "This kernel runs inside a verification: it does not start another one "
                "(verify the notebook from your own kernel or the command line)."
            )
        # nbformat and nbclient take seconds to import on a busy machine: off the loop, which
        # in a kernel also answers the side panel (and here, Stop)
        nb = await asyncio.to_thread(read_notebook, self.path)
        await asyncio.to_thread(load_nbclient)
        name, warnings = kernel_name(nb, self.settings)
        report = VerifyReport(
            notebook=str(self.path), kernel=name, with_agent=self.settings.with_agent, warnings=warnings
        )
        started = time.monotonic()
        try:
            if any(self._runs(nb, f) for f in analyse_notebook(nb.cells)):  # else no kernel is needed
                await self._start(copy.deepcopy(nb), name, report)
            await self._cells(nb, report, started + self.settings.timeout)
        finally:
            self.kill_now()
            await self.close()
            report.seconds = round(time.monotonic() - started, 3)
        return report

    async def _start(self, work: Any, name: str, report: VerifyReport) -> None:
        # nbclient loads only when a notebook is verified
        from nbclient import NotebookClient

        self.progress(f"starting a fresh {name} kernel…")
        client = NotebookClient(
            work,
            timeout=self.settings.cell_timeout,
            startup_timeout=int(self.settings.startup_timeout),
            kernel_name=name,
            allow_errors=True,
            shutdown_kernel="immediate",
            resources={"metadata": {"path": str(self.path.parent)}},
        )
        self._client = client
        client.km = client.create_kernel_manager()
        began = time.monotonic()
        # the kernel's own stderr (ipykernel's transport warning) is not the notebook's output
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        await client.async_start_new_kernel(env=self._env(), cwd=str(self.path.parent), **quiet)
        provisioner = getattr(client.km, "provisioner", None)
        self._pgid = getattr(provisioner, "pgid", None) or getattr(
            getattr(provisioner, "process", None), "pid", None
        )
        await client.async_start_new_kernel_client()
        report.kernel_start_seconds = round(time.monotonic() - began, 3)

    async def _cells(self, nb: Any, report: VerifyReport, deadline: float) -> None:
        facts = [
            f for f in analyse_notebook(nb.cells) if source_of(nb.cells[f.index]).strip()
        ]  # blank: not shown
        total = len(facts)
        for position, fact in enumerate(facts):
            cell = nb.cells[fact.index]
            if not self._runs(nb, fact):
                report.cells.append(skipped(fact, cell))
                continue
            if report.stopped is not None:
                report.cells.append(judge(fact, cell, None))
                continue
            self.progress(f"cell {fact.number} ({position + 1} of {total})")
            report.cells.append(await self._one(fact, cell, report, deadline))

    def _runs(self, nb: Any, fact: CellFacts) -> bool:
        """Whether the cell runs: code (not blank), and not an agent cell unless replayed."""
        source = source_of(nb.cells[fact.index])
        if not source.strip():
            return False
        return not fact.agent or (self.settings.with_agent and not is_verify_cell(source))

    async def _one(self, fact: CellFacts, cell: Any, report: VerifyReport, deadline: float) -> CellReport:
        # nbclient loads only when a notebook is verified
        from nbclient.exceptions import CellTimeoutError, DeadKernelError

        client = self._client
        work = client.nb.cells[fact.index]
        began = time.monotonic()
        task = asyncio.ensure_future(client.async_execute_cell(work, fact.index, store_history=True))
        task.add_done_callback(_retrieved)  # a cell cut short by Stop ends in nbclient's DeadKernelError
        try:
            done, _ = await asyncio.wait({task}, timeout=max(0.0, deadline - began))
        except BaseException:  # cancelled: the caller's finally kills the kernel
            task.cancel()
            raise
        failure = None
        if not done:
            task.cancel()
            report.stopped = f"the total time limit ({self.settings.timeout:g} s, verify.timeout) was reached"
            failure = "stopped here: " + report.stopped
        else:
            try:
                task.result()
            except CellTimeoutError:
                failure = (
                    f"ran longer than the {self.settings.cell_timeout:g} s cell limit (verify.cell_timeout)"
                )
                with contextlib.suppress(Exception):
                    await client.km.interrupt_kernel()
            except DeadKernelError:
                failure = "the verification kernel died while running it (out of memory?)"
                report.stopped = "the verification kernel died"
        seconds = round(time.monotonic() - began, 3)
        outputs = list(work.get("outputs") or [])
        return judge(
            fact,
            cell,
            outputs,
            failure=failure,
            live_hidden=self.live_hidden,
            tol=self.settings.tolerance,
            seconds=seconds,
        )

    def kill_now(self) -> None:
        """SIGKILL the verification kernel and whatever it started (its process group); sync,
        so a Ctrl-C handler or a cancelled task stops it before anything else runs."""
        process = getattr(getattr(getattr(self._client, "km", None), "provisioner", None), "process", None)
        pgid, self._pgid = self._pgid, None
        if pgid is None and process is not None and process.poll() is None:
            pgid = process.pid  # a start cut short: the kernel's process exists, its group too
        if pgid is None:
            return
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
        if process is not None:
            with contextlib.suppress(Exception):
                process.wait(timeout=CLOSE_TIMEOUT_S)  # reaped: no zombie left behind

    async def close(self) -> None:
        """Close the client's channels and remove the connection file (after :meth:`kill_now`)."""
        client, self._client = self._client, None
        if client is None or client.km is None:
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client._async_cleanup_kernel(), CLOSE_TIMEOUT_S)
