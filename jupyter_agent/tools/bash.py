"""``bash``: run a shell command in the project, streaming its output; Stop and timeouts kill it.

The command runs in its own session (process group), so a timeout or Stop kills its
children too (a ``sleep`` under a killed shell would otherwise keep the pipe open).
The low-level ``loop.subprocess_shell`` is used rather than ``create_subprocess_shell``
because its transport is public: when the shell has exited but a background job still
holds stdout, we close our end after a grace period instead of waiting forever.
Output streams through a ``BoundedOutput``: its ends in memory, the whole of it (to
``tool_output.max_saved_bytes``) in a file; a command that writes more is stopped. The
tail is what the model sees, where results and errors are.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools import bash_check, kernel_kind, process_guard, sandbox
from jupyter_agent.tools.base import PermissionDenied, Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.bash_parse import parse
from jupyter_agent.tools.bounded_output import PROGRESS_TAIL, BoundedOutput
from jupyter_agent.tools.descriptions import describe

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
PROGRESS_EVERY_S = 0.1
KILL_GRACE_S = 0.2
"""SIGTERM first so commands can clean up, SIGKILL after this."""
DETACH_GRACE_S = 1.0
"""How long to keep reading after the shell exited while a background job holds stdout."""


class BashArgs(BaseModel):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(
        default=None,
        ge=1,
        description="Optional timeout in milliseconds (default 120000, max 600000)",
    )
    description: str | None = Field(
        default=None,
        description="Clear, concise description of what this command does in 5-10 words",
    )


class _Collector(asyncio.SubprocessProtocol):
    """Feeds combined stdout+stderr to a ``BoundedOutput``; reports exit, end of output, cap."""

    def __init__(self, output: BoundedOutput, on_data: Callable[[_Collector], None]) -> None:
        self.output = output
        self.on_data = on_data
        self.exited = asyncio.Event()
        self.eof = asyncio.Event()
        self.capped = asyncio.Event()

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.output.feed(bytes(data))
        if self.output.capped:
            self.capped.set()
        self.on_data(self)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        self.eof.set()

    def process_exited(self) -> None:
        self.exited.set()

    def tail(self, limit: int = PROGRESS_TAIL) -> str:
        return self.output.tail(limit)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def _first(*events: asyncio.Event, timeout: float) -> asyncio.Event | None:
    """The first event set within ``timeout`` seconds, or None."""
    waiters = {asyncio.ensure_future(e.wait()): e for e in events}
    try:
        done, _ = await asyncio.wait(waiters, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waiters:
            w.cancel()
    return next((waiters[w] for w in done), None)


async def _stop(pid: int, proto: _Collector) -> None:
    """TERM the whole group, KILL it shortly after, and wait for the shell to go."""
    _signal_group(pid, signal.SIGTERM)
    await _first(proto.eof, timeout=KILL_GRACE_S)
    _signal_group(pid, signal.SIGKILL)
    await _first(proto.exited, timeout=5)


@dataclass(frozen=True)
class CommandCheck:
    """What the rules see in one command line (``check_command``)."""

    patterns: list[str]
    """Matched against the ``bash`` rules: every simple command, several spellings."""
    unsure: str | None
    """Why the line cannot be judged: it asks, whatever a ``"*"`` rule allows."""
    outside: list[Path]
    """Paths outside the project it names (``external_directory``)."""
    outside_patterns: list[str]
    writes: str | None
    """Why it is not read-only (``bash_write``)."""


UNREADABLE = "the rule checker could not read this command (an internal error, logged)"


def check_command(ctx: ToolContext, command: str) -> CommandCheck:
    """Read ``command`` for the rules. A checker that raises is a bug, never a crashed call:
    it is logged with the command, and the line asks as one that cannot be parsed does."""
    try:
        return _check(ctx, command)
    except Exception:
        log.error("The bash rule checker failed on the command %r", command[:2000], exc_info=True)
        return CommandCheck([command], UNREADABLE, [], [], UNREADABLE)


def _check(ctx: ToolContext, command: str) -> CommandCheck:
    parsed = parse(command)
    unsure = parsed.problems[0] if parsed.problems else None
    patterns = bash_check.patterns(parsed) or [command]
    if parsed.problems:  # unparsed: a program a rule denies, named anywhere in it, denies the line
        patterns += [
            t for t in bash_check.token_tails(command) if ctx.rule("bash", t, specific=True) == "deny"
        ][:1]
    for pattern, why in bash_check.suspects(parsed):  # wrapped in a way the parser cannot follow: ask
        if ctx.rule("bash", pattern, specific=True) == "deny":
            unsure = unsure or f"{why}, which a rule denies"
            break
    outside = bash_check.external_paths(parsed, ctx.working_dir, ctx.project_root)
    writes = bash_check.write_problem(parsed)
    return CommandCheck(patterns, unsure, outside, bash_check.external_patterns(outside), writes)


async def permit_command(ctx: ToolContext, command: str, title: str) -> None:
    """Every simple command against the ``bash`` rules (strictest wins; what cannot be
    parsed asks), paths leaving the project against ``external_directory``, and anything
    that is not read-only against ``bash_write`` (asked under the plan agent)."""
    check = check_command(ctx, command)
    await ctx.permit("bash", check.patterns, title, unsure=check.unsure, command=command)
    if check.outside:
        await ctx.permit(
            "external_directory",
            check.outside_patterns,
            f"Run outside the project: {', '.join(map(str, check.outside[:3]))}",
            command=command,
        )
    if check.writes is not None:
        await ctx.permit("bash_write", [command], title, command=command, reason=check.writes)


class BashTool(Tool[BashArgs]):
    name = "bash"
    description = describe("bash")
    Args = BashArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        command = args.command.strip()
        title = args.description or command[:80]
        services = ctx.services
        in_kernel = services.shell is not None
        refused = kernel_kind.refusal("bash", services.require_contained, in_kernel, services.admin_file)
        if refused:
            raise PermissionDenied(refused)
        await permit_command(ctx, command, title)
        timeout_ms = min(args.timeout or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)
        if not ctx.working_dir.is_dir():
            raise ToolError(f"The working directory {ctx.working_dir} does not exist.")
        loop = asyncio.get_running_loop()
        last = 0.0
        pending: asyncio.TimerHandle | None = None

        def report(collector: _Collector) -> None:
            nonlocal last, pending
            last, pending = loop.time(), None
            ctx.progress(args.description, output=collector.tail())

        def on_data(collector: _Collector) -> None:
            # at most one live update per PROGRESS_EVERY_S; a timer delivers the last chunk
            nonlocal pending
            wait = PROGRESS_EVERY_S - (loop.time() - last)
            if wait <= 0:
                report(collector)
            elif pending is None:
                pending = loop.call_later(wait, report, collector)

        output = BoundedOutput(ctx.limits, ctx.new_output_file)
        # bash -c inside the OS sandbox where it can start (tools/sandbox.py), else bare
        try:
            spawn = sandbox.command(
                args.command, ctx.working_dir, ctx.project_root, ctx.services.sandbox, ctx.services.guard
            )
        except sandbox.SandboxUnsafe as exc:
            raise ToolError(str(exc)) from None
        try:
            transport, proto = await loop.subprocess_exec(
                lambda: _Collector(output, on_data),
                *spawn.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                cwd=str(ctx.working_dir),
                start_new_session=True,
                env=spawn.env,
            )
        except BaseException:
            spawn.finish()  # nothing ran: its staged git copies and the guardian's sweep go
            output.close()
            raise
        pid = transport.get_pid()
        process_guard.watch(pid)  # killed with the run, even by kill -9 of this process
        notes: list[str] = []
        try:
            first = await _first(proto.exited, ctx.abort, proto.capped, timeout=timeout_ms / 1000)
            if first is not proto.exited:
                await _stop(pid, proto)
                if first is ctx.abort:
                    notes.append("User aborted the command")
                elif first is proto.capped:
                    notes.append(f"{output.cap_note()}: the command was stopped")
                else:
                    notes.append(f"bash tool terminated command after exceeding timeout {timeout_ms} ms")
            elif output.capped:
                notes.append(output.cap_note())
            if await _first(proto.eof, timeout=DETACH_GRACE_S) is None:
                notes.append(
                    "The command exited but a background process still holds its output; "
                    "later output is not captured. Redirect it (cmd > log 2>&1 &)."
                )
            if pending is not None:  # deliver the last throttled chunk to live views
                pending.cancel()
                report(proto)
        except asyncio.CancelledError:
            _signal_group(pid, signal.SIGKILL)
            ctx.progress(args.description, output=proto.tail())
            output.discard()
            raise
        finally:
            if pending is not None:
                pending.cancel()
            transport.close()
            output.close()
            process_guard.release_if_gone(pid)  # background jobs stay watched until they end
            moved = spawn.finish()  # git's copies written back, protected files it made moved aside
        code = transport.get_returncode()
        extra = ""
        if notes:
            extra = "\n\n<bash_metadata>\n" + "\n".join(notes) + "\n</bash_metadata>"
        elif code:
            extra = f"\n\n(exit code {code})"
        if moved:
            extra += "\n\n" + "\n".join(moved)
        return ToolResult(
            output=(output.text("tail") + extra) or "(no output)",
            title=title,
            metadata={"exit": code, "description": args.description or ""},
            truncate_direction="tail",
            saved=output.saved(extra),
        )
