"""``jupyter-agent verify NOTEBOOK.ipynb``: does the saved notebook reproduce? For CI.

The notebook runs top to bottom in a fresh kernel of its kernelspec (nbclient), agent cells
skipped unless ``--with-agent``, and each cell's outputs are compared with the saved ones
(``repro/``). The table goes to stdout (``--json``: the report), progress to stderr. Exit
codes: 0 reproducible, 1 not (a cell failed or differs), 2 usage (no such file, unknown
kernel), 130 stopped (Ctrl-C or SIGTERM: the verification kernel is killed first).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import signal
import sys
from pathlib import Path
from typing import Any

from jupyter_agent.config import load_config
from jupyter_agent.core.errors import EXIT_INTERRUPTED
from jupyter_agent.kernel.verification import settings_from
from jupyter_agent.repro.runner import Verification, load_nbclient

DESCRIPTION = __doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else ""


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0 (e.g. 600)")
    return value


def add_verify_command(sub: Any) -> None:
    verify = sub.add_parser(
        "verify",
        help="run a saved notebook in a fresh kernel and compare its outputs",
        description=DESCRIPTION,
    )
    verify.add_argument("notebook", help="the .ipynb file (its saved outputs are what is compared)")
    verify.add_argument(
        "--with-agent", action="store_true", help="replay %%agent cells too (they ask the model again)"
    )
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument("--kernel", help="kernelspec to run it with (default: the notebook's)")
    verify.add_argument(
        "--cell-timeout",
        type=_seconds,
        metavar="S",
        help="seconds a cell may run (default: verify.cell_timeout)",
    )
    verify.add_argument(
        "--timeout",
        type=_seconds,
        metavar="S",
        help="seconds the whole run may take (default: verify.timeout)",
    )


def run_verify(args: argparse.Namespace) -> int:
    path = Path(args.notebook).expanduser().resolve()
    folder = path.parent if path.parent.is_dir() else Path.cwd()
    settings = settings_from(load_config(folder), with_agent=args.with_agent, kernel=args.kernel)
    overrides = {"cell_timeout": args.cell_timeout, "timeout": args.timeout}
    settings = dataclasses.replace(settings, **{k: v for k, v in overrides.items() if v})
    load_nbclient()  # before the handlers: a Ctrl-C while it loads is a plain interrupt (exit 130)
    return asyncio.run(_verify(Verification(path, settings, progress=_progress), args.json))


def _progress(text: str) -> None:
    print(f"verify: {text}", file=sys.stderr, flush=True)


class _Stop:
    """Ctrl-C and SIGTERM: the verification kernel's process group is killed in the handler
    itself (a plain handler runs even while the loop is busy), then the run is cancelled. A
    second Ctrl-C exits at once."""

    def __init__(self, run: Verification) -> None:
        self.run = run
        self.hit = False
        self.loop = asyncio.get_running_loop()
        self.task = asyncio.current_task()
        self.saved: dict[int, Any] = {}

    def __enter__(self) -> _Stop:
        for signum in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError):  # not the main thread
                self.saved[signum] = signal.signal(signum, self.handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)

    def handle(self, signum: int, frame: Any) -> None:
        self.run.kill_now()
        if self.hit and signum == signal.SIGINT:
            raise SystemExit(EXIT_INTERRUPTED)
        self.hit = True
        if self.task is not None:
            self.loop.call_soon_threadsafe(self.task.cancel)


async def _verify(run: Verification, as_json: bool) -> int:
    with _Stop(run) as stop:
        try:
            report = await run.run()
        except asyncio.CancelledError:
            if not stop.hit:
                raise
            print("error: verification stopped; its kernel was shut down", file=sys.stderr)
            return EXIT_INTERRUPTED
    print(report.model_dump_json(indent=2) if as_json else report.text(), flush=True)
    return report.exit_code
