"""The agent inside a live kernel: one Runtime per notebook, run in the background or blocking.

In a kernel with a frontend the loop runs as a task on the kernel's asyncio loop: the
cell returns at once and widget clicks (Stop, approvals) are handled while it runs.
Headless kernels (nbclient, papermill) and plain IPython run to completion, blocking,
because nothing would keep the task alive or show its output after the cell ends.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from jupyter_agent.kernel import hidden_state, warmup
from jupyter_agent.kernel.cell_errors import CellErrors
from jupyter_agent.kernel.config_watch import ConfigWatch
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.repro.tracker import HiddenStateTracker
from jupyter_agent.tools import kernel_kind
from jupyter_agent.tools.notebook_path import find_notebook_path, frontend_attached, runner_notebook

if TYPE_CHECKING:  # the runtime pulls in pydantic models and the loop: imported on first use
    from jupyter_agent.agent.runtime import Runtime
    from jupyter_agent.config import Config
    from jupyter_agent.repro.report import VerifyReport

log = logging.getLogger(__name__)
T = TypeVar("T")


_blocking_loop: asyncio.AbstractEventLoop | None = None


def run_blocking(coro: Coroutine[Any, Any, T], leftovers: Callable[[], bool] | None = None) -> T:
    """Run ``coro`` to completion on this thread, even inside the kernel's running loop.

    The kernel's loop is paused while the cell blocks anyway; a private loop on the same
    (main) thread keeps user code on the main thread, so signals and plots behave. The
    private loop is kept for the next blocking cell: litellm keeps its HTTP clients per
    event loop, and a fresh loop per cell cost every ``--wait`` prompt a new client and
    connection (~50 ms before the request left). ``leftovers``: whether work the run started
    and did not wait for (its session's title) is still going: it goes on while the kernel idles.
    """
    global _blocking_loop
    outer = running_loop()
    if outer is None:
        return asyncio.run(coro)
    events = asyncio.events
    events._set_running_loop(None)
    if _blocking_loop is None or _blocking_loop.is_closed():
        _blocking_loop = asyncio.new_event_loop()
    try:
        return _blocking_loop.run_until_complete(coro)
    finally:
        events._set_running_loop(outer)
        if leftovers is not None:
            _carry_on(outer, _blocking_loop, leftovers)


PUMP_S = 0.02
PUMP_FOR_S = 60.0
"""At most this long (a title that never answers does not keep it turning)."""


def _carry_on(
    outer: asyncio.AbstractEventLoop, loop: asyncio.AbstractEventLoop, pending: Callable[[], bool]
) -> None:
    """Work a blocking run left going (its session's title, asked beside the answer and never
    waited for) goes on while the kernel is idle: the private loop gets a short turn every
    ``PUMP_S`` on the kernel's loop until that work is done (the next blocking run carries it
    itself). A turn waits for nothing: it runs what is ready and polls sockets without blocking."""
    until = time.monotonic() + PUMP_FOR_S

    def turn() -> None:
        if loop.is_closed() or loop.is_running() or not pending() or time.monotonic() > until:
            return
        events = asyncio.events
        events._set_running_loop(None)
        try:
            loop.run_until_complete(asyncio.sleep(0))
        except Exception:  # the work's own failures are its business; the kernel carries on
            log.debug("a blocking run's leftover work failed", exc_info=True)
        finally:
            events._set_running_loop(outer)
        if pending():
            outer.call_later(PUMP_S, turn)

    if pending():
        outer.call_later(PUMP_S, turn)


class KernelAgent:
    """The per-kernel state the magics share: runtime, current session, widgets."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self._runtime: Runtime | None = None
        self.session_id: str | None = None
        self.tasks: set[asyncio.Task[Any]] = set()
        self.panels: list[Any] = []
        """Open side-panel connections (``ui/panel.py``)."""
        self.running: set[str] = set()
        """Sessions a ``%agent`` cell or a panel is running now (shown as busy by every panel)."""
        self._watch: ConfigWatch | None = None
        """The configuration's files and variables as the runtime last read them."""
        self._runner_notebook: tuple[Path | None] | None = None
        """The notebook a headless runner executes, once looked up (it does not change)."""
        self.settings_version = 0
        """Counts configuration re-reads that changed something (panels refresh on a change)."""
        self.errors = CellErrors(shell)
        """The cells that raised since ``%load_ext`` (``%agent fix``, Fix with agent)."""
        self.errors.install()
        self.hidden = HiddenStateTracker(shell.user_ns)
        """Which names each cell and each ``python`` call of the agent set (hidden state)."""
        self.hidden_hooks = hidden_state.install(shell, self.hidden)
        self.hidden_runs = hidden_state.HiddenRuns(self.hidden)
        self.last_verify: VerifyReport | None = None
        """The latest ``%agent verify`` / ``/verify`` report ("Fix with agent" hands it over)."""
        self.inline: Any = None
        """The inline completer (``kernel/inline_completer.py``), made when a front end first asks."""

    # ------------------------------------------------------------ where we are

    def notebook_path(self) -> Path | None:
        found = find_notebook_path(self.shell.user_ns, os.environ)
        if found is not None or not self.headless():
            return found
        if self._runner_notebook is None:
            history = getattr(getattr(self.shell, "history_manager", None), "input_hist_raw", [])
            self._runner_notebook = (runner_notebook([h for h in history if h.strip()]),)
        return self._runner_notebook[0]

    def headless(self) -> bool:
        """No frontend can show a live widget: run blocking and answer approvals by config."""
        if os.environ.get("JUPYTER_AGENT_BACKGROUND") == "1":
            return False
        return running_loop() is None or not frontend_attached(self.shell.user_ns, os.environ)

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            warmup.give_way()
            self._runtime = self._build()
        return self._runtime

    def _build(self) -> Runtime:
        # the runtime (the loop, SQLite, pydantic models) loads on the first prompt, not at %load_ext
        from jupyter_agent.agent.compose import build_runtime
        from jupyter_agent.config import project_root
        from jupyter_agent.storage.sqlite_store import SqliteStore
        from jupyter_agent.tools.registry import register_kernel_tools
        from jupyter_agent.tools.services import Services

        notebook = self.notebook_path()
        folder = notebook.parent if notebook else Path.cwd().resolve()
        config = self._read_config(folder, ConfigWatch.now([]))
        store = SqliteStore.for_directory(folder, config.store)
        runtime = build_runtime(
            config=config,
            store=store,
            project_root=project_root(folder),
            working_dir=folder,
            notebook_path=str(notebook) if notebook else None,
            services=Services(
                shell=self.shell,
                kernel=kernel_kind.kind(),
                hidden_state=self.hidden,
                verify_notebook=self._verify,
            ),
        )
        register_kernel_tools(runtime.registry)
        if store.notice:
            runtime.notices.append(store.notice)
        return runtime

    async def _verify(
        self, notebook: Path | None, with_agent: bool, progress: Callable[[str], None]
    ) -> VerifyReport:
        """``verify_notebook``: a notebook (None: this kernel's) in a fresh kernel, with this
        kernel's hidden names."""
        # the verification (nbclient, nbformat) loads when the agent first verifies
        from jupyter_agent.kernel.verification import verify
        from jupyter_agent.repro.runner import NotebookUnusable

        notebook = notebook or self.notebook_path()
        if notebook is None:
            raise NotebookUnusable("No notebook is associated with this kernel: pass its path.")
        return await verify(self, notebook, with_agent=with_agent, progress=progress)

    def _read_config(self, folder: Path, watch: ConfigWatch) -> Config:
        """Load the configuration; ``watch`` (stamped before reading, so a change made while
        reading is seen next time) then covers every file it came from."""
        # pydantic and the config model load on the first prompt, not at %load_ext
        from jupyter_agent.config import load_config

        config = load_config(folder)
        watch.add(config.watched)
        self._watch = watch
        return config

    def refresh(self, *, force: bool = False) -> Runtime:
        """The runtime, with its configuration read again if a file or a ``JUPYTER_AGENT_*``
        variable changed since (``force``: always). A prompt starts here, so a change applies
        from the next prompt and is told once; an invalid file raises ``ConfigError`` until fixed."""
        runtime = self.runtime
        changed = self._watch.changes() if self._watch is not None else []
        if not changed and not force:
            return runtime
        # the wiring of a runtime loads with the runtime, not at %load_ext
        from jupyter_agent.agent.compose import reconfigure

        watch = ConfigWatch.now(self._watch.files if self._watch else [])
        config = self._read_config(runtime.working_dir, watch)
        before = runtime.config.model_dump()
        reconfigure(runtime, config)
        if changed and config.model_dump() != before:
            runtime.notices.append(f"Settings changed ({', '.join(changed)}): used from this prompt on.")
            self.settings_version += 1
        return runtime

    def after_cell(self, *_: Any) -> None:
        """After each cell (IPython's ``post_run_cell``): open side panels pick up settings a
        cell changed (``%env JUPYTER_AGENT_MODEL=…``, a file written) without a reconnect."""
        if not self.panels or self._runtime is None:
            return
        # built already (the runtime exists): importing the config model costs nothing now
        from jupyter_agent.config import ConfigError

        version = self.settings_version
        try:
            self.refresh()
        except Exception as exc:  # a hook that raises prints a traceback into the user's cell
            if not isinstance(exc, ConfigError):
                log.exception("re-reading the configuration failed")
            for panel in list(self.panels):  # a broken file: the panel says so; the next prompt refuses
                panel.stream.notice(str(exc), "error")
            return
        if self.settings_version != version:
            for panel in list(self.panels):
                panel.settings_changed()

    def current_session(self, *, new: bool = False, session_id: str | None = None, cont: bool = False) -> str:
        """The session a prompt goes to: explicit, fresh, current, or the latest stored one.

        A kernel with no live front end (papermill, nbconvert, nbclient) starts a fresh session
        on its first prompt, so a re-run does not carry the last run's conversation
        (``cont``: ``--continue``, or ``"headless_session": "continue"``, keeps it)."""
        rt = self.runtime
        if session_id:
            self.session_id = rt.get_session(session_id).id
        elif new or cont or self.session_id is None:
            fresh = new or (not cont and self.headless() and rt.config.headless_session == "new")
            latest = None if fresh else rt.latest_session()
            self.session_id = latest.id if latest else rt.new_session().id
        return self.session_id

    def notify_panels(self, session_id: str, busy: bool) -> None:
        """A cell's run started or ended: open side panels show it (and their Stop works)."""
        if busy:
            self.running.add(session_id)
        else:
            self.running.discard(session_id)
        for panel in list(self.panels):
            panel.run_state(session_id, busy)

    def session_changed(self, session_id: str) -> None:
        """A revert or unrevert hid or brought back messages: panels showing the session redraw it."""
        for panel in list(self.panels):
            if panel.stream.session_id == session_id:
                panel.show(session_id)

    def stopped(self, view: Any, session_id: str) -> None:
        """A run was cancelled: say so once (the stopped answer may already say it)."""
        last = self.runtime.last_message(session_id)
        error = getattr(last.info, "error", None) if last else None
        if getattr(error, "name", None) != "aborted":
            view.notice("Stopped.")
