"""``bash``: run a shell command in the project, streaming its output; Stop and timeouts kill it.

The tail of a command's output carries its result and errors, so truncation keeps the
tail. The whole process group is killed so ``sleep`` children do not outlive a Stop.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolResult
from jupyter_agent.tools.descriptions import describe

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
PROGRESS_EVERY_S = 0.1
PROGRESS_TAIL = 30_000


class BashArgs(BaseModel):
    command: str = Field(description="The command to execute")
    timeout: int | None = Field(default=None, description="Optional timeout in milliseconds (max 600000)")
    description: str | None = Field(
        default=None, description="Clear, concise description of what this command does in 5-10 words"
    )


def _kill(proc: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class BashTool(Tool[BashArgs]):
    name = "bash"
    description = describe("bash")
    Args = BashArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.command.strip()]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        await ctx.permit("bash", [args.command.strip()], args.description or args.command)
        timeout_ms = min(args.timeout or DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)
        proc = await asyncio.create_subprocess_shell(
            args.command,
            cwd=str(ctx.working_dir),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            start_new_session=True,
        )
        chunks: list[bytes] = []
        last_progress = 0.0

        async def pump() -> None:
            nonlocal last_progress
            assert proc.stdout is not None
            while True:
                data = await proc.stdout.read(65_536)
                if not data:
                    return
                chunks.append(data)
                now = time.monotonic()
                if now - last_progress >= PROGRESS_EVERY_S:
                    last_progress = now
                    tail = b"".join(chunks[-64:])[-PROGRESS_TAIL:]
                    ctx.progress(args.description, output=tail.decode("utf-8", errors="replace"))

        reader = asyncio.ensure_future(pump())
        waiter = asyncio.ensure_future(proc.wait())
        aborter = asyncio.ensure_future(ctx.abort.wait())
        note = ""
        try:
            done, _ = await asyncio.wait(
                {waiter, aborter}, timeout=timeout_ms / 1000, return_when=asyncio.FIRST_COMPLETED
            )
            if waiter not in done:
                _kill(proc)
                if aborter in done:
                    note = "User aborted the command"
                else:
                    note = f"bash tool terminated command after exceeding timeout {timeout_ms} ms"
                await proc.wait()
            await asyncio.wait_for(reader, timeout=5)
        except asyncio.CancelledError:
            _kill(proc)
            tail = b"".join(chunks)[-PROGRESS_TAIL:]
            ctx.progress(args.description, output=tail.decode("utf-8", errors="replace"))
            raise
        finally:
            aborter.cancel()
            if not reader.done():
                reader.cancel()
        output = b"".join(chunks).decode("utf-8", errors="replace")
        code = proc.returncode
        if note:
            output += f"\n\n<bash_metadata>\n{note}\n</bash_metadata>"
        elif code:
            output += f"\n\n(exit code {code})"
        return ToolResult(
            output=output or "(no output)",
            title=args.description or args.command[:80],
            metadata={"exit": code, "description": args.description or ""},
            truncate_direction="tail",
        )
