"""bash: exit codes, stderr, timeouts and aborts kill the process group, tail direction."""

from __future__ import annotations

import asyncio
import time

from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.base import ToolContext


async def run(ctx: ToolContext, **args):  # type: ignore[no-untyped-def]
    tool = BashTool()
    return await tool.run(tool.Args(**args), ctx)


async def test_output_exit_code_and_stderr(ctx: ToolContext) -> None:
    result = await run(ctx, command="echo out; echo err >&2; exit 3")
    assert "out" in result.output and "err" in result.output and "(exit code 3)" in result.output
    assert result.metadata["exit"] == 3 and result.truncate_direction == "tail"


async def test_timeout_kills_and_keeps_partial_output(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await run(ctx, command="echo begun; sleep 30", timeout=500)
    assert time.monotonic() - started < 5
    assert "begun" in result.output and "exceeding timeout 500 ms" in result.output


async def test_abort_event_kills(ctx: ToolContext) -> None:
    async def stop_soon() -> None:
        await asyncio.sleep(0.3)
        ctx.abort.set()

    started = time.monotonic()
    _, result = await asyncio.gather(stop_soon(), run(ctx, command="sleep 30"))
    assert time.monotonic() - started < 5 and "User aborted" in result.output


async def test_large_and_invalid_utf8_output(ctx: ToolContext) -> None:
    big = await run(ctx, command="head -c 10000000 /dev/zero | tr '\\0' 'a'")
    assert len(big.output) == 10_000_000
    weird = await run(ctx, command="printf 'ok\\377\\376'")
    assert weird.output.startswith("ok") and "\ufffd" in weird.output
