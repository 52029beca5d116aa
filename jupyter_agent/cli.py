"""``jupyter-agent``: the same loop, headless — for scripts, CI and quick checks.

``run`` streams the answer to stdout (or JSON events with ``--json``), stores the
session in ``.jupyter-agent/`` next to the notebook (or the working directory), and
exits with a readable one-line message when something fails: 0 done, 1 failed,
2 usage or configuration, 130 interrupted. ``--debug`` (or ``JUPYTER_AGENT_DEBUG=1``)
adds the traceback and the provider libraries' logs.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import contextlib
import os
import signal
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from jupyter_agent import __version__, audit_cli
from jupyter_agent.cli_printer import Printer, print_cost, print_notice
from jupyter_agent.core.errors import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE
from jupyter_agent.core.messages import AssistantMessage
from jupyter_agent.core.redaction import RedactingWriter
from jupyter_agent.failures import explain
from jupyter_agent.kernel_cli import add_kernel_command, run_kernel_command
from jupyter_agent.logs import debug_enabled, route_library_logs
from jupyter_agent.mcp import listing
from jupyter_agent.session_cli import add_session_commands, other_stores, run_session_command
from jupyter_agent.setup_cli import add_setup_command, run_setup
from jupyter_agent.trust_cli import add_trust_command, run_trust_command
from jupyter_agent.verify_cli import add_verify_command, run_verify

TITLE_GRACE_S = 10.0
"""How long ``run`` waits, after printing everything, for a title still on its way."""

if TYPE_CHECKING:
    from jupyter_agent.agent.runtime import Runtime


def build_runtime(args: argparse.Namespace) -> Runtime:
    """The runtime for the command's folder (``--notebook``'s, else the working directory).
    A configuration file that is not trusted stops ``run`` and ``compact`` (they would run
    the model without it) with the line naming ``jupyter-agent trust``; other commands are
    told it was left out."""
    # `jupyter-agent --help` stays fast: the runtime and the store load per command
    from jupyter_agent.agent.compose import build_runtime as compose
    from jupyter_agent.config import check_url, load_config, project_root
    from jupyter_agent.failures import UsageProblem
    from jupyter_agent.run_checks import missing_folder
    from jupyter_agent.storage.sqlite_store import SqliteStore

    notebook = Path(args.notebook).resolve() if getattr(args, "notebook", None) else None
    folder = notebook.parent if notebook else Path.cwd().resolve()
    if not folder.is_dir():  # a typo must not create folders (and a store) somewhere new
        raise UsageProblem(missing_folder(args.notebook, folder))
    overrides: dict[str, Any] = {}
    if getattr(args, "model", None):
        overrides["model"] = args.model
    if getattr(args, "api_base", None):
        try:
            overrides["api_base"] = check_url(args.api_base)
        except ValueError as exc:
            raise UsageProblem(f"--api-base: {exc}") from None
    if getattr(args, "budget", None) is not None:
        overrides["budget"] = {"turn_usd": args.budget}
    config = load_config(folder, overrides)
    for pending in config.untrusted:
        if args.command in ("run", "compact"):
            raise UsageProblem(pending.refusal())
        print(
            f"note: {pending.path} is not trusted, so it was not applied (jupyter-agent trust)",
            file=sys.stderr,
        )
    store = SqliteStore.for_directory(folder, config.store)
    if store.notice:
        print(f"note: {store.notice}", file=sys.stderr)
    return compose(
        config=config,
        store=store,
        project_root=project_root(folder),
        working_dir=folder,
        notebook_path=str(notebook) if notebook else None,
    )


class _StopOnSignals:
    """Ctrl-C and SIGTERM stop a headless run: the step is aborted and recorded, the shell's
    process group killed (a ``kill -9`` is covered by ``process_guard``).

    Cancelling the task alone is not enough: Python 3.11 can lose a cancellation inside library
    code (the answer then kept streaming), so the run's abort event is set too and the exit
    code follows ``hit``, not the exception. A second Ctrl-C exits at once."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.hit = False
        self.task = asyncio.current_task()

    def install(self) -> None:
        # a plain handler, not the loop's: it runs even while a write waits, blocking the loop,
        # for another process's lock on the store (that wait then gives up: lock_wait)
        from jupyter_agent.storage import lock_wait  # the store loads per command

        loop = asyncio.get_running_loop()

        def handler(sig: int, frame: Any) -> None:
            lock_wait.waits.stop(sticky=True)
            loop.call_soon_threadsafe(self.fire, sig)

        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError):
                signal.signal(sig, handler)

    def fire(self, sig: int) -> None:
        if self.hit and sig == signal.SIGINT:  # the second Ctrl-C: no more waiting
            print("error: interrupted twice; exiting without waiting for the step to close", file=sys.stderr)
            raise SystemExit(EXIT_INTERRUPTED)
        self.hit = True
        self.runtime.stop()
        if self.task is not None:
            self.task.cancel()


async def _run(args: argparse.Namespace) -> int:
    # `jupyter-agent --help` stays fast: the runtime and the store load per command
    from jupyter_agent.agent import send
    from jupyter_agent.run_checks import run_problem
    from jupyter_agent.storage.sqlite_store import StoreError, StoreWaitStopped

    problem = run_problem(args)
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    runtime = build_runtime(args)
    session_id = args.session
    if session_id:
        runtime.get_session(session_id)  # a mistyped id fails before any note or request
    if args.cont and not session_id:
        latest = runtime.latest_session()
        session_id = latest.id if latest else None
    runtime.bus.subscribe(Printer(args.json))
    stopper = _StopOnSignals(runtime)
    stopper.install()
    try:
        problem = send.problem(runtime, args.model, args.agent, cli=True)
        if problem is not None:
            print(problem, file=sys.stderr)
            return EXIT_USAGE
        await runtime.wait_writable()  # another process's lock: said, and Ctrl-C ends it
        session_id = session_id or runtime.new_session().id
        prompt = send.Prompt(args.prompt, session_id, args.agent, args.model, typed=args.prompt)
        session_id = await send.send(runtime, prompt, print_notice, cli=True)
        if stopper.hit:  # the abort event ended the step before the cancellation arrived
            raise asyncio.CancelledError
    except (asyncio.CancelledError, StoreWaitStopped) as stop:  # SIGTERM or Ctrl-C
        waited = isinstance(stop, StoreWaitStopped)
        try:
            runtime.flush()
        except StoreError:  # still locked by another process: what was written is kept
            waited = True
        if waited:
            print(f"error: stopped. {StoreWaitStopped(runtime.store_path)}", file=sys.stderr)
        else:
            print("error: stopped; the interrupted step is kept in the session", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        for notice in send.later_notices(runtime, session_id or ""):
            print_notice(notice)
    # the answer is out and the session free; a new session's title (asked beside the answer,
    # its cost part of the session's) gets a moment to be stored before the last lines
    await runtime.settle_titles(TITLE_GRACE_S)
    recorder = runtime.recorder(session_id)
    window = recorder.window()
    last = next((m.info for m in reversed(window) if isinstance(m.info, AssistantMessage)), None)
    print_cost(recorder, session_id, args.json)
    if not args.json:
        print(f"session: {session_id}", file=sys.stderr)
    if last is not None and last.error is not None:
        return EXIT_FAILED
    return 0


async def _compact(args: argparse.Namespace) -> int:
    runtime = build_runtime(args)
    session_id = args.session or (runtime.latest_session() or None)
    if session_id is None:
        print("No session to compact in this folder.", file=sys.stderr)
        return EXIT_USAGE
    sid = session_id if isinstance(session_id, str) else session_id.id
    runtime.bus.subscribe(Printer(False))
    await runtime.compact(sid, runtime.resolve_model(args.model))
    last = runtime.recorder(sid).window()[-1].info
    if isinstance(last, AssistantMessage) and last.error is not None:
        return EXIT_FAILED
    print(f"compacted {sid}", file=sys.stderr)
    return 0


def _usd(text: str) -> float:
    try:
        value = float(text.lstrip("$"))
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not an amount in USD above 0 (e.g. --budget 0.50)")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="jupyter-agent", description=__doc__)
    top.add_argument("--version", action="version", version=f"jupyter-agent {__version__}")
    top.add_argument("--debug", action="store_true", help="show tracebacks and library logs")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="run one prompt headless", description="Run one prompt headless.")
    run.add_argument("prompt", help="what to ask the agent")
    compact = sub.add_parser("compact", help="summarise a session now")
    for p in (run, compact):
        p.add_argument("--notebook", help="the notebook whose session store to use")
        p.add_argument(
            "--model",
            help="litellm model id, e.g. anthropic/claude-sonnet-4-5, openai/gpt-5, ollama/qwen2.5-coder "
            '(default: JUPYTER_AGENT_MODEL or "model" in jupyter-agent.json)',
        )
        p.add_argument("--api-base", dest="api_base", help="endpoint of an OpenAI-compatible server")
        p.add_argument("--session", help="session id (default: a new one for run)")
    run.add_argument(
        "--agent",
        default="build",
        help="build (default: may edit files and run code), plan (read-only, proposes changes), "
        "explore or general (sub-agents, as with @explore / @general)",
    )
    run.add_argument("--continue", dest="cont", action="store_true", help="continue the latest")
    run.add_argument("--json", action="store_true", help="print events as JSON lines")
    run.add_argument(
        "--budget", type=_usd, metavar="USD", help="stop after the step that makes this prompt cost more"
    )

    add_session_commands(sub)
    add_setup_command(sub)
    add_verify_command(sub)
    add_trust_command(sub)
    add_kernel_command(sub)

    listing.add_command(sub)
    audit_cli.add_command(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    """Parse, run, and turn expected failures into one line and an exit code."""
    args = parser().parse_args(argv)
    debug = debug_enabled(args.debug)
    route_library_logs(debug)
    with _redacted_output():
        return _main(args, debug)


@contextlib.contextmanager
def _redacted_output() -> Iterator[None]:
    """Keys never reach the terminal: answers, tool lines, errors and tracebacks included."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingWriter(sys.stdout), RedactingWriter(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def _main(args: argparse.Namespace, debug: bool) -> int:
    try:
        return _dispatch(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `… | head`: the reader has gone; say nothing, as `ls | head` does
        _silence_stdout()
        return EXIT_FAILED
    except Exception as exc:
        explained = explain(exc, cli=True)
        if debug:
            traceback.print_exc()
        if explained is None:
            print(
                f"error: {type(exc).__name__}: {exc} (unexpected: run again with --debug for the "
                "traceback and report it)",
                file=sys.stderr,
            )
            return EXIT_FAILED
        print(f"error: {explained.message}", file=sys.stderr)
        return explained.exit_code


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the exit-time flush does not raise again."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "run":
        return asyncio.run(_run(args))
    if args.command == "compact":
        return asyncio.run(_compact(args))
    if args.command == "mcp":
        return listing.main(args, build_runtime)
    if args.command == "setup":
        return run_setup(args)
    if args.command == "verify":
        return run_verify(args)
    if args.command == "trust":
        return run_trust_command(args)
    if args.command == "kernel":
        return run_kernel_command(args)
    if args.command == "audit":
        return audit_cli.main(args)

    return run_session_command(args, build_runtime, other_stores)


def entry() -> NoReturn:
    """The ``jupyter-agent`` command: once the work is written and the exit handlers have run
    (stores closed, MCP servers stopped), leave without the interpreter's teardown. Tearing
    down litellm's thousands of objects took 1.5 s idle and far longer on a loaded machine, and
    a library's daemon thread caught mid-import there can hold the exit for good."""
    try:
        code = main()
    except SystemExit as exc:  # usage errors and a second Ctrl-C
        if not isinstance(exc.code, int | None):
            raise
        code = exc.code or 0
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a reader that has gone (`| head`) changes nothing now
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
