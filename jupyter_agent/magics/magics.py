"""``%agent``, ``%%agent`` and ``%compact``: thin glue from IPython to the Runtime.

Parsing lives in ``parser.py`` (pure), per-kernel state in ``kernel/agent.py``; this module only
wires a widget to a run and turns expected failures into readable text, never tracebacks.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.display import display

from jupyter_agent.failures import explain
from jupyter_agent.kernel import warmup
from jupyter_agent.kernel.agent import KernelAgent, run_blocking
from jupyter_agent.logs import debug_enabled
from jupyter_agent.magics import help_text
from jupyter_agent.magics.outcome import AgentRunError, run_failure, should_raise, stop_reason

if TYPE_CHECKING:
    from jupyter_agent.magics.parser import PromptCommand

# Everything else (pydantic models, the runtime, litellm) is imported on first use so
# %load_ext stays well under 150 ms.

log = logging.getLogger(__name__)
LOADING = "Loading the model client…"
F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def _read(read: Callable[[], T]) -> T | None:
    """What ``read`` returns; None (logged) when the store fails: the run is over either way."""
    try:
        return read()
    except Exception:
        log.exception("could not read the run's messages")
        return None


def _documented(text: str) -> Callable[[F], F]:
    """Give a magic its help text (IPython's ``?`` shows the function's docstring)."""

    def document(fn: F) -> F:
        fn.__doc__ = text
        return fn

    return document


@magics_class
class AgentMagics(Magics):
    """The user-facing magics; one instance per kernel."""

    def __init__(self, shell: Any) -> None:
        super().__init__(shell)
        self.agent = KernelAgent(shell)

    @line_magic("agent")
    @_documented(help_text.AGENT_LINE)  # what `%agent?` shows
    def agent_line(self, line: str) -> None:
        self._dispatch(line, None)

    @cell_magic("agent")
    @_documented(help_text.AGENT_CELL)
    def agent_cell(self, line: str, cell: str) -> None:
        self._dispatch(line, cell)

    @line_magic("compact")
    @_documented(help_text.COMPACT)
    def compact(self, line: str) -> None:
        if line.strip() in help_text.HELP_WORDS:
            _help(help_text.COMPACT)  # `%compact --help`: not a session id
            return
        # %load_ext imports this module: the subcommands load on the first use
        from jupyter_agent.magics.subcommands import compact_now

        self._guard(lambda: compact_now(self.agent, line.strip() or None), self.agent.headless())

    # ------------------------------------------------------------ dispatch

    def _dispatch(self, line: str, cell: str | None) -> None:
        if cell is None and line.strip() in help_text.HELP_WORDS:
            _help(help_text.AGENT_LINE)  # `%agent help`, `-h`, `--help`, `?`: never a paid call
            return
        if cell is not None and (
            line.strip() in help_text.HELP_WORDS
            or (cell.strip() in help_text.CELL_HELP_WORDS and not line.strip())
        ):
            _help(help_text.AGENT_CELL)  # `%%agent --help` (the body is not sent either)
            return
        # %load_ext imports this module: the parser and subcommands load on the first %agent
        from jupyter_agent.magics.parser import SubCommand, UsageError, parse
        from jupyter_agent.magics.subcommands import run_subcommand

        headless = self.agent.headless()
        try:
            command = parse(line, cell)
        except UsageError as exc:
            self._problem(str(exc), headless)
            return
        if isinstance(command, SubCommand) and command.name == "fix" and command.args == ["verify"]:
            self._guard(self._fix_verify, headless)
            return
        if isinstance(command, SubCommand) and command.name == "fix":
            self._guard(lambda: self._fix(command.args[0] if command.args else None), headless)
            return
        if isinstance(command, SubCommand):
            self._guard(lambda: run_subcommand(self.agent, command), headless)
            return
        blocking = command.wait or headless
        whole_cell = cell is not None or self._only_line()
        self._guard(lambda: self._prompt(command, whole_cell), blocking, command.no_raise)

    def _only_line(self) -> bool:
        """The cell running is this one ``%agent`` line: its outputs are all the run's."""
        history = getattr(getattr(self.shell, "history_manager", None), "input_hist_raw", None) or [""]
        return len(str(history[-1]).strip().splitlines()) == 1

    def _guard(self, action: Any, blocking: bool, no_raise: bool = False) -> None:
        """Expected problems (no model, unknown session…) print guidance, not a traceback;
        in a blocking cell they raise it as one line, so a headless runner stops there."""
        try:
            action()
        except AgentRunError:
            raise
        except Exception as exc:  # the CLI's rule: a JupyterAgentError, or a file that cannot be written
            explained = explain(exc)
            if explained is None or debug_enabled():
                raise
            self._problem(explained.message, blocking, no_raise)

    def _problem(self, message: str, blocking: bool, no_raise: bool = False) -> None:
        """Print ``message``; a blocking cell raises it too, as one line (its first)."""
        runtime = self.agent._runtime  # not built here: a broken config must not hide its error
        if not should_raise(blocking, no_raise, runtime.config if runtime is not None else None):
            print(message)
            return
        first, _, rest = message.strip().partition("\n")
        if rest.strip():
            print(message)  # the full guidance (how to set a model, the usage) above the error
        raise AgentRunError(first)

    def _fix(self, cell: str | None) -> None:
        """``%agent fix [CELL]``: the cell that raised, its traceback and variables to the
        ``fix`` agent, which replaces the cell (and runs it) once the user approves."""
        # %load_ext imports this module: the fix prompt and the parser load on the first %agent fix
        from jupyter_agent.kernel.fix import NothingToFix, find_error, fix_prompt
        from jupyter_agent.magics.parser import PromptCommand

        try:
            error = find_error(self.agent.errors, cell)
        except NothingToFix as exc:
            print(str(exc))
            return
        fix = fix_prompt(error, self.shell, self.agent.runtime.save_output)
        self._prompt(PromptCommand(prompt=fix.words, agent="fix"), expanded=fix.text, hidden=fix.instructions)

    def _fix_verify(self) -> None:
        """``%agent fix verify``: the latest verification's report to the ``fix`` agent."""
        # %load_ext imports this module: the prompt's pieces load on the first use
        from jupyter_agent.kernel.verify_fix import verify_fix_prompt
        from jupyter_agent.magics.parser import PromptCommand

        words, prompt = verify_fix_prompt(self.agent.last_verify)
        self._prompt(PromptCommand(prompt=words, agent="fix"), expanded=prompt)

    def _prompt(
        self,
        cmd: PromptCommand,
        whole_cell: bool = False,
        expanded: str | None = None,
        hidden: str | None = None,
    ) -> None:
        # %load_ext imports this module: the run's pieces and the widget stack load on the first prompt
        from jupyter_agent.agent import send
        from jupyter_agent.agent.run import RunHandle
        from jupyter_agent.core import ids, unicode
        from jupyter_agent.core.errors import JupyterAgentError
        from jupyter_agent.core.model import ResolvedModel
        from jupyter_agent.kernel.mentions import expand_mentions
        from jupyter_agent.ui.cell_output import CellRun, NoView
        from jupyter_agent.ui.console_stream import ConsoleStream
        from jupyter_agent.ui.hidden_marker import finish_run
        from jupyter_agent.ui.live_gauge import LiveGauge
        from jupyter_agent.ui.transcript import RunStatus
        from jupyter_agent.ui.widget import AgentWidget

        agent = self.agent
        headless = cmd.wait or agent.headless()
        bad = unicode.problem(cmd.prompt)
        if bad is not None:  # refused before a session or a message is written
            self._problem(f"{bad}.", headless, cmd.no_raise)
            return
        runtime = agent.refresh()  # settings changed since the last prompt apply from this one
        loading = not warmup.client_ready()  # Run All: the warm-up is still importing litellm
        problem = send.problem(runtime, cmd.model, cmd.agent, keys=not loading)  # keys need litellm
        if problem is not None:
            self._problem(problem, headless, cmd.no_raise)
            return
        session_id = agent.current_session(new=cmd.new, session_id=cmd.session, cont=cmd.cont)
        text = expand_mentions(cmd.prompt, agent) if expanded is None else expanded
        # notebook edits of a cell's run go through the side panel that greeted last
        bridge = agent.panels[-1].bridge if agent.panels else None
        handle = RunHandle(interactive=not headless, bridge=bridge)
        since = ids.ascending("msg")
        waiting: list[asyncio.Future[None]] = []  # the wait for the model client, which Stop ends
        no_widget = agent.headless()
        widget = (
            NoView()
            if no_widget
            else AgentWidget(
                runtime.bus,
                session_id,
                since_id=since,
                on_stop=lambda: _stop(runtime, session_id, waiting),
                on_approve=runtime.permissions.reply,
            )
        )
        listeners: list[Callable[[], None]] = []  # the gauge joins once the model client is loaded
        # the transcript replaces the streamed text when the cell's outputs are all the run's
        console = ConsoleStream(session_id, replace=whole_cell) if no_widget else None
        if console is not None:  # no widget shows the run: its text goes to the cell's stdout
            listeners.append(runtime.bus.subscribe(console))
        run = CellRun(widget, session_id=session_id, prompt=cmd.prompt, since=since)
        run.streamed = console is not None
        failure: list[str | None] = [None]
        cell_id = agent.hidden.current_cell  # the %agent cell: "Add as cell" inserts below it
        mark = agent.hidden_runs.start()

        def on_model(model: ResolvedModel) -> None:
            run.model, run.window = model.name, model.context
            gauge = LiveGauge(widget, session_id, model.context, runtime)
            listeners.append(runtime.bus.subscribe(gauge))

        async def go() -> None:
            agent.notify_panels(session_id, True)
            status: RunStatus = "done"
            try:
                if loading:
                    await _load_client(run, runtime, waiting)
                typed = cmd.prompt if expanded is None else None  # a fix's prompt names no resource
                prompt = send.Prompt(
                    text, session_id, cmd.agent, cmd.model, handle, instructions=hidden, typed=typed
                )
                await send.send(runtime, prompt, run.notice, on_model=on_model)
            except asyncio.CancelledError:
                status = "stopped"
                agent.stopped(run, session_id)
            except JupyterAgentError as exc:  # no key, no model: known before anything ran
                status = "failed"
                failure[0] = exc.for_user()  # a headless run raises it as its one line
                run.notice(failure[0], "error")
            except Exception as exc:
                status = "failed"
                log.exception("agent run failed")
                explained = explain(exc)  # a full disk is a sentence, a bug keeps its class name
                failure[0] = explained.message if explained else f"Error: {type(exc).__name__}: {exc}"
                run.notice(failure[0], "error")
            finally:
                for off in listeners:
                    off()
                if console is not None:
                    console.finish()
                agent.notify_panels(session_id, False)
                done = _read(lambda: runtime.messages(session_id, since))
                why = stop_reason(done or [])
                if why:  # a budget or a repeated call ended it: the transcript says why, not just "stopped"
                    run.notice(why, "warn")
                if headless and failure[0] is None and done is not None:
                    failure[0] = run_failure(done, status == "stopped")
                # what the agent's code left that no cell reproduces: marked in the transcript
                marker = finish_run(agent, since, session_id, mark, cell_id)
                # the saved notebook keeps a static transcript, not a widget it cannot restore
                run.finish(status, lambda: done or [], marker)

        if headless:
            run_blocking(go(), leftovers=runtime.titles_pending)  # a title goes on while the kernel idles
            if failure[0] is not None and should_raise(True, cmd.no_raise, runtime.config):
                raise AgentRunError(failure[0])
            return
        task = asyncio.get_running_loop().create_task(go())
        agent.tasks.add(task)
        task.add_done_callback(agent.tasks.discard)


async def _load_client(run: Any, runtime: Any, waiting: list[asyncio.Future[None]]) -> None:
    """Run All: the prompt came while the warm-up still imports litellm. Say so, do the
    request's own work meanwhile, and wait off the event loop (cells and Stop still work);
    the key is checked after it (``send``)."""
    run.status(LOADING)
    runtime.registry.specs()  # the request's tool schemas (cached) while the import runs
    waiting.append(asyncio.ensure_future(warmup.model_client()))
    try:
        await waiting[0]
    finally:
        waiting.clear()
    run.status("")


def _help(text: str) -> None:
    """Help as Markdown (it wraps with the notebook), plain text for consoles and logs."""
    display(help_text.bundle(text), raw=True)


def _stop(runtime: Any, session_id: str, waiting: list[asyncio.Future[None]]) -> None:
    """The widget's Stop: the run, or the wait for the model client before it."""
    runtime.stop(session_id)
    for future in waiting:
        future.cancel()
