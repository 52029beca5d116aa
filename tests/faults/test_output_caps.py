"""Issue 27.1: a command that floods its output cannot eat the process running the agent.

``yes`` wrote 1.7 GB and peaked at 18 GB in five seconds before: the output streams to a
file under ``tool-output/`` (the model sees its tail), the file stops at
``tool_output.max_saved_bytes`` saying so, and the command is stopped there. The peak is
the CLI process's own high-water mark (``wait4``), with an address-space limit so the
old behaviour fails the test instead of the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import time
from pathlib import Path
from typing import Any

from cli_process import start_run, wait_for
from faults_support import parts, tool_results
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart
from jupyter_agent.tools.base import OutputLimits, ToolContext
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.bounded_output import BoundedOutput

MB = 1 << 20


def _limit_memory() -> None:
    """In the child: fail with MemoryError well before the machine runs out."""
    resource.setrlimit(resource.RLIMIT_AS, (4096 * MB, 4096 * MB))


def _run_cli_measured(server: Any, cwd: Path, prompt: str) -> tuple[int, str, str, int]:
    """The command as a user runs it: (exit code, stdout, stderr, peak RSS in bytes, from wait4)."""
    proc = start_run(server, cwd, prompt, text=False, preexec_fn=_limit_memory)
    assert proc.stdout is not None and proc.stderr is not None
    out = bytearray()
    err = bytearray()
    os.set_blocking(proc.stdout.fileno(), False)
    os.set_blocking(proc.stderr.fileno(), False)
    deadline = time.monotonic() + 240
    status = None
    usage = None
    while status is None:
        for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
            with contextlib.suppress(BlockingIOError, TypeError):
                chunk = stream.read()
                if chunk:
                    buf += chunk
        pid, code, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            status, usage = code, ru
            break
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"the run did not end; stderr: {err.decode()[-3000:]}")
        time.sleep(0.05)
    for stream, buf in ((proc.stdout, out), (proc.stderr, err)):
        with contextlib.suppress(BlockingIOError, TypeError, ValueError):
            buf += stream.read() or b""
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert usage is not None
    return proc.returncode, out.decode(), err.decode(), usage.ru_maxrss * 1024


def test_yes_is_stopped_at_the_cap_and_memory_stays_small(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: the run ends; the tool result says "The output passed 50 MB
    (tool_output.max_saved_bytes); the rest was not kept: the command was stopped" and where
    the saved part is; that file is 50 MB and says where it was cut; the process peaked at
    most 100 MB above the same CLI answering one line of text (it was 18 GB)."""
    quiet = tmp_path / "quiet"
    quiet.mkdir()
    scripted_server.queue(Reply(text="Hello."))
    code, _, err, baseline = _run_cli_measured(scripted_server, quiet, "say hello")
    assert code == 0, err
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "yes", "timeout": 5000}))]),
        Reply(text="It printed y forever."),
    )
    code, out, err, peak = _run_cli_measured(scripted_server, tmp_path, "run yes")
    assert code == 0, err
    assert "It printed y forever." in out
    print(f"peak RSS {peak / MB:.0f} MB, a text-only run {baseline / MB:.0f} MB")
    assert peak < baseline + 100 * MB, f"peak RSS {peak / MB:.0f} MB vs {baseline / MB:.0f} MB"
    (result,) = tool_results(scripted_server.requests[2])
    said = "The output passed 50 MB (tool_output.max_saved_bytes); the rest was not kept"
    assert f"{said}: the command was stopped" in result
    saved = Path(result.split("Full output saved to: ", 1)[1].split("\n", 1)[0])
    assert saved.parent == tmp_path / ".jupyter-agent" / "tool-output"
    size = saved.stat().st_size
    assert 50 * MB <= size < 50 * MB + 200, size
    with saved.open("rb") as fh:
        fh.seek(50 * MB - 4)
        end = fh.read().decode()
    assert end.startswith("y\ny\n") or end.startswith("\ny\ny"), end[:10]
    assert end.rstrip().endswith("[output cut here: it passed 50 MB]")
    assert len(result) < 60_000  # the model sees the tail within the limits


async def _progress_until(part_has: Any, runtime: Any, timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        running = [
            e.part
            for e in runtime.events
            if e.type == "part.updated" and isinstance(e.part, ToolPart) and e.part.state.status == "running"
        ]
        if running and part_has(running[-1]):
            return running[-1]
    raise AssertionError("the tool never showed progress")


async def test_stop_during_a_flood_leaves_no_partial_file(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """Stop while ``yes`` floods a file: the call ends at once as "Tool execution aborted" with
    its live tail kept, and no half-written file is left in tool-output/."""
    runtime = make_runtime(tool_output={"max_saved_bytes": 10_000 * MB})
    scripted_model.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "yes"}))]))
    task = asyncio.create_task(runtime.prompt("flood"))
    part = await _progress_until(lambda p: "y\ny\n" in str(p.state.metadata.get("output", "")), runtime)
    await asyncio.sleep(0.5)
    stopped_at = time.monotonic()
    runtime.stop()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    assert time.monotonic() - stopped_at < 10  # not the 120 s timeout (room for a loaded machine)
    (tool,) = parts(runtime, part.session_id, ToolPart)
    assert tool.state.status == "error" and tool.state.error == "Tool execution aborted"
    assert "y\ny" in tool.state.metadata["output"] and len(tool.state.metadata["output"]) <= 30_000
    folder = tmp_path / ".jupyter-agent" / "tool-output"
    assert not folder.exists() or list(folder.iterdir()) == []


def test_sigint_during_a_flood_ends_the_cli_at_once(tmp_path: Path, scripted_server: Any) -> None:
    """Ctrl-C while ``yes`` floods: the command ends with "stopped" within seconds, exit 130,
    no traceback, no partial file."""
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "yes"}))]))
    (tmp_path / "jupyter-agent.json").write_text(
        json.dumps({"tool_output": {"max_saved_bytes": 10_000 * MB}})
    )
    proc = start_run(scripted_server, tmp_path, "flood", preexec_fn=_limit_memory)
    try:
        folder = tmp_path / ".jupyter-agent" / "tool-output"
        wait_for(lambda: folder.is_dir() and any(folder.iterdir()), what="the flood to reach the file")
        stopped_at = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert time.monotonic() - stopped_at < 15  # the command would run for 120 s
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "stopped" in err
    assert list(folder.iterdir()) == []


async def test_memory_holds_only_the_ends(tmp_path: Path) -> None:
    """100 MB through the tool keeps ~2 × max_bytes of text in memory; the file has all of it."""
    ctx = ToolContext(
        "s", "m", "c", "build", tmp_path, tmp_path, limits=OutputLimits(max_saved_bytes=200 * MB)
    )
    ctx.new_output_file = lambda: tmp_path / "all.txt"
    tool = BashTool()
    result = await tool.run(
        tool.Args(command="head -c 100000000 /dev/zero | tr '\\0' 'x'; echo; echo END"), ctx
    )
    assert result.saved is not None and result.saved.total_bytes == 100_000_000 + 5
    assert (tmp_path / "all.txt").stat().st_size == 100_000_005
    assert result.output.endswith("x\nEND\n") and len(result.output) <= 2 * ctx.limits.max_bytes


def test_a_secret_split_across_chunks_is_redacted_in_the_saved_file(tmp_path: Path, monkeypatch: Any) -> None:
    """Hostile: a key printed one byte at a time, past the limits, still never reaches the file."""
    secret = "sk-live-0123456789abcdef"
    monkeypatch.setenv("SOME_API_KEY", secret)
    out = BoundedOutput(OutputLimits(max_bytes=100, max_lines=10), lambda: tmp_path / "saved.txt")
    for ch in ("x" * 500 + secret + "y" * 500 + secret[:5]).encode():
        out.feed(bytes([ch]))
    out.close()
    saved = (tmp_path / "saved.txt").read_text()
    assert secret not in saved and "[REDACTED:SOME_API_KEY]" in saved
    assert saved.endswith("y" * 500 + secret[:5])
    assert secret not in out.text("tail") and out.text("tail").endswith(secret[:5])
