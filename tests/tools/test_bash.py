"""bash on real processes: output, exit codes, timeouts and Stop kill the group, streaming."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from host_pids import pids_of, unique_sleep
from tools_support import Call, Recorder

from jupyter_agent.tools.base import PermissionDenied, ToolContext, ToolError
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.sandbox import SandboxPolicy


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it is dead for our purpose
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


async def wait_dead(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


async def wait_gone(command: str, within: float = 3.0) -> bool:
    """No process runs ``command`` any more (pids inside the sandbox are not ours: by name)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not pids_of(command):
            return True
        await asyncio.sleep(0.05)
    return False


async def test_output_stderr_and_exit_code(call: Call, rec: Recorder) -> None:
    result = await call(BashTool(), command="echo out; echo err >&2; exit 3", description="Fail on purpose")
    assert result.output == "out\nerr\n\n\n(exit code 3)"
    assert result.metadata == {"exit": 3, "description": "Fail on purpose"}
    assert result.title == "Fail on purpose" and result.truncate_direction == "tail"
    assert rec.asked("bash") == [["echo out", "echo err", "exit 3"]]  # each command on its own


async def test_success_runs_in_working_dir_with_bash(call: Call, root: Path) -> None:
    result = await call(BashTool(), command="pwd; [[ -n $BASH_VERSION ]] && echo bash")
    assert result.output == f"{root}\nbash\n" and result.metadata["exit"] == 0
    assert (await call(BashTool(), command="true")).output == "(no output)"


async def test_missing_working_dir_is_a_tool_error(call: Call, ctx: ToolContext, root: Path) -> None:
    ctx.working_dir = root / "gone"
    with pytest.raises(ToolError, match="does not exist"):
        await call(BashTool(), command="true")


async def test_rejected_command_never_runs(call: Call, root: Path, rec: Recorder) -> None:
    rec.reject.add("bash")
    with pytest.raises(PermissionDenied):
        await call(BashTool(), command="touch ran.txt")
    assert not (root / "ran.txt").exists()


async def test_timeout_kills_the_process_group(call: Call, root: Path) -> None:
    started = time.monotonic()
    sleep = unique_sleep(30)
    # long enough for the sandbox to start and echo under load, far short of the 30 s sleep
    result = await call(BashTool(), command=f"{sleep} & echo begun; wait", timeout=2000)
    assert time.monotonic() - started < 15  # not the 30 s sleep (room for a loaded machine)
    assert result.output.startswith("begun\n")
    assert result.output.endswith(
        "<bash_metadata>\nbash tool terminated command after exceeding timeout 2000 ms\n</bash_metadata>"
    )
    assert await wait_gone(sleep)


async def test_children_get_sigterm_before_sigkill(call: Call, ctx: ToolContext) -> None:
    # our stop's order (TERM, a grace, then KILL) on the bare process group: in the sandbox a
    # trap can lose the race with the namespace's teardown (docs/security.md)
    ctx.services.sandbox = SandboxPolicy(enabled=False)
    script = "(trap 'echo child-cleanup; exit 0' TERM; sleep 30 & wait) & wait"
    # the timeout must come after the subshell set its trap: under load (and the sandbox's start)
    # 300 ms was sometimes before it, and the subshell died of the TERM it was about to trap
    result = await call(BashTool(), command=script, timeout=3000)
    assert "child-cleanup" in result.output


async def test_abort_event_kills(call: Call, ctx: ToolContext, root: Path) -> None:
    async def stop_soon() -> None:
        await asyncio.sleep(0.4)
        ctx.abort.set()

    started = time.monotonic()
    sleep = unique_sleep(30)
    _, result = await asyncio.gather(stop_soon(), call(BashTool(), command=f"echo working; {sleep}"))
    assert time.monotonic() - started < 15  # not the 30 s sleep (room for a loaded machine)
    assert result.output == "working\n\n\n<bash_metadata>\nUser aborted the command\n</bash_metadata>"
    assert await wait_gone(sleep)


async def test_task_cancel_kills_and_reports_partial_output(call: Call, root: Path, rec: Recorder) -> None:
    sleep = unique_sleep(30)
    task = asyncio.ensure_future(call(BashTool(), command=f"echo partial; {sleep}"))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(sleep)
    assert rec.progress[-1][1]["output"] == "partial\n"


async def test_progress_is_streamed_and_throttled(call: Call, rec: Recorder) -> None:
    script = "for i in 1 2 3 4; do echo tick$i; sleep 0.25; done; seq 1 200000"
    result = await call(BashTool(), command=script, description="Ticks")
    outputs = [meta["output"] for _, meta in rec.progress]
    assert outputs[0] == "tick1\n" and any(o.endswith("tick3\n") for o in outputs)
    assert rec.progress[0][0] == "Ticks"
    # seq writes in many chunks within a few ms: at most one update per 100 ms
    assert len(outputs) < 20
    assert outputs[-1].endswith("200000\n") and result.output.endswith("199999\n200000\n")


async def test_background_job_holding_stdout_does_not_hang(call: Call, ctx: ToolContext, root: Path) -> None:
    ctx.services.sandbox = SandboxPolicy(enabled=False)  # in the sandbox it ends with the command
    started = time.monotonic()
    result = await call(BashTool(), command="sleep 20 & echo $! > bg.pid; echo early")
    pid = int((root / "bg.pid").read_text())
    try:
        assert time.monotonic() - started < 10  # not the 20 s of the background job
        assert result.output.startswith("early\n") and "background process" in result.output
        assert result.metadata["exit"] == 0
    finally:
        os.kill(pid, 9)


async def test_ten_megabytes_are_saved_intact(call: Call, ctx: ToolContext, root: Path) -> None:
    """The whole output goes to the file; memory holds its ends only (the model sees the tail)."""
    ctx.new_output_file = lambda: root / "saved.txt"
    result = await call(BashTool(), command="head -c 10000000 /dev/zero | tr '\\0' 'a'")
    assert (root / "saved.txt").read_text() == "a" * 10_000_000
    assert result.saved is not None and result.saved.path == str(root / "saved.txt")
    assert result.saved.total_bytes == 10_000_000 and result.saved.total_lines == 1
    assert set(result.output) == {"a"} and len(result.output) <= 2 * ctx.limits.max_bytes


async def test_invalid_utf8_is_replaced(call: Call) -> None:
    result = await call(BashTool(), command="printf 'ok\\377\\376done'")
    assert result.output == "ok\ufffd\ufffddone"
