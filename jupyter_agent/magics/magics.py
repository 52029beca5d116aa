"""``%agent``, ``%%agent`` and ``%compact``: thin glue from IPython to the Runtime.

Parsing lives in ``parser.py`` (pure), per-kernel state in ``kernel.py``; this module only
wires a widget to a run and turns expected failures into readable text, never tracebacks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

from jupyter_agent.failures import explain
from jupyter_agent.kernel import warmup
from jupyter_agent.kernel.agent import KernelAgent, run_blocking
from jupyter_agent.logs import debug_enabled

if TYPE_CHECKING:
    from jupyter_agent.magics.parser import PromptCommand

# Everything else (pydantic models, the runtime, litellm) is imported on first use so
# %load_ext stays well under 150 ms.

log = logging.getLogger(__name__)
LOADING = "Loading the model client…"


@magics_class
class AgentMagics(Magics):
    """The user-facing magics; one instance per kernel."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.agent = KernelAgent(shell)

    @line_magic("agent")
    def agent_line(self, line: str) -> None:
        self._dispatch(line, None)

    @cell_magic("agent")
    def agent_cell(self, line: str, cell: str) -> None:
        self._dispatch(line, cell)

    @line_magic("compact")
    def compact(self, line: str) -> None:
        # %load_ext imports this module: the subcommands load on the first use
        from jupyter_agent.magics.subcommands import compact_now

        self._guard(lambda: compact_now(self.agent, line.strip() or None))

    # ------------------------------------------------------------ dispatch

    def _dispatch(self, line: str, cell: str | None) -> None:
        # %load_ext imports this module: the parser and subcommands load on the first %agent
        from jupyter_agent.magics.parser import SubCommand, UsageError, parse
        from jupyter_agent.magics.subcommands import run_subcommand

        try:
            command = parse(line, cell)
        except UsageError as exc:
            print(str(exc))
            return
        if isinstance(command, SubCommand):
            self._guard(lambda: run_subcommand(self.agent, command))
            return
        self._guard(lambda: self._prompt(command))

    def _guard(self, action: Any) -> None:
        """Expected problems (no model, unknown session…) print guidance, not a traceback."""
        # %load_ext imports this module: the agent definitions and the store load on the first failure
        from jupyter_agent.agent.agents import UnknownAgent
        from jupyter_agent.session.fork import MessageNotFound
        from jupyter_agent.storage.sqlite_store import SessionNotFound

        try:
            action()
        # names the user typed (a session, an agent, a message); any other KeyError is a bug
        except (SessionNotFound, UnknownAgent, MessageNotFound) as exc:
            print(str(exc))
        except Exception as exc:  # the CLI's list: config, store, a file that cannot be written
            explained = explain(exc)
            if explained is None or debug_enabled():
                raise
            print(explained.message)

    def _prompt(self, cmd: PromptCommand) -> None:
        # %load_ext imports this module: the run's pieces and the widget stack load on the first prompt
        from jupyter_agent.agent.run import RunHandle
        from jupyter_agent.core import ids, unicode
        from jupyter_agent.kernel.mentions import expand_mentions
        from jupyter_agent.ui.cell_output import CellRun, NoView
        from jupyter_agent.ui.live_gauge import LiveGauge
        from jupyter_agent.ui.transcript import RunStatus
        from jupyter_agent.ui.widget import AgentWidget

        bad = unicode.problem(cmd.prompt)
        if bad is not None:  # refused before a session or a message is written
            print(f"{bad}.")
            return
        agent = self.agent
        runtime = agent.runtime
        model = runtime.model_for(cmd.model, cmd.agent)
        loading = not warmup.client_ready()  # Run All: the warm-up is still importing litellm
        problem = None if loading else runtime.preflight(model)  # the check may need litellm
        if problem is not None:
            print(problem)
            return
        session_id = agent.current_session(new=cmd.new, session_id=cmd.session)
        text = expand_mentions(cmd.prompt, agent)
        headless = cmd.wait or agent.headless()
        # notebook edits of a cell's run go through the side panel that greeted last
        bridge = agent.panels[-1].bridge if agent.panels else None
        handle = RunHandle(interactive=not headless, bridge=bridge)
        since = ids.ascending("msg")
        waiting: list[asyncio.Future[None]] = []  # the wait for the model client, which Stop ends
        widget = (
            NoView()
            if agent.headless()
            else AgentWidget(
                runtime.bus,
                session_id,
                since_id=since,
                on_stop=lambda: _stop(runtime, session_id, waiting),
                on_approve=runtime.permissions.reply,
            )
        )
        run = CellRun(widget, session_id=session_id, prompt=cmd.prompt, since=since, model=model)
        listening: list[Callable[[], None]] = []

        async def go() -> None:
            agent.notify_panels(session_id, True)
            status: RunStatus = "done"
            try:
                if loading:
                    await _load_client(run, runtime, model, waiting)
                limits = runtime.settings(model)
                gauge = LiveGauge(widget, session_id, limits.context_limit, runtime.store)
                listening.append(runtime.bus.subscribe(gauge))
                for notice in runtime.take_notices(session_id, model):
                    run.notice(notice)
                await runtime.start_mcp()  # first prompt: start MCP servers, show failures now
                for notice in runtime.take_notices(session_id, model):
                    run.notice(notice, "warn")
                await runtime.prompt(text, session_id=session_id, agent=cmd.agent, model=model, handle=handle)
            except asyncio.CancelledError:
                status = "stopped"
                agent.stopped(run, session_id)
            except _NotRunnable as exc:
                status = "failed"
                run.notice(str(exc), "error")
            except Exception as exc:
                status = "failed"
                log.exception("agent run failed")
                explained = explain(exc)  # a full disk is a sentence, a bug keeps its class name
                run.notice(explained.message if explained else f"Error: {type(exc).__name__}: {exc}", "error")
            finally:
                for unsubscribe in listening:
                    unsubscribe()
                agent.notify_panels(session_id, False)
                # the saved notebook keeps a static transcript, not a widget it cannot restore
                run.finish(status, lambda: runtime.store.messages(session_id, since))

        if headless:
            run_blocking(go())
            return
        task = asyncio.get_running_loop().create_task(go())
        agent.tasks.add(task)
        task.add_done_callback(agent.tasks.discard)


async def _load_client(run: Any, runtime: Any, model: str, waiting: list[asyncio.Future[None]]) -> None:
    """Run All: the prompt came while the warm-up still imports litellm. Say so, do the
    request's own work meanwhile, and wait off the event loop (cells and Stop still work)."""
    run.status(LOADING)
    runtime.registry.specs()  # the request's tool schemas (cached) while the import runs
    waiting.append(asyncio.ensure_future(warmup.model_client()))
    try:
        await waiting[0]
    finally:
        waiting.clear()
    run.status("")
    problem = runtime.preflight(model)  # deferred: it may need litellm
    if problem is not None:
        raise _NotRunnable(problem)


def _stop(runtime: Any, session_id: str, waiting: list[asyncio.Future[None]]) -> None:
    """The widget's Stop: the run, or the wait for the model client before it."""
    runtime.stop(session_id)
    for future in waiting:
        future.cancel()


class _NotRunnable(Exception):
    """The prompt cannot start (no API key for the model): its message says what to do."""
