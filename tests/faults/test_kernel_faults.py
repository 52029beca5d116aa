"""Faults in a real kernel: Stop, interrupt, and SIGKILL — mid-tool and mid-stream — then resume.

Each case finishes a turn first (``%agent --wait``), then hits the fault, then checks that
turn is still in the store file unchanged and the kernel (or its replacement) still works.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from faults_support import FIRST_TURN, assert_kept, finished
from kernel_harness import Kernel
from kernel_harness import wait_widget_idle as _wait_idle
from kernel_harness import widget_traffic as _widget_traffic
from scripted_server import Reply, ToolCall

from jupyter_agent.storage.paths import db_path

pytestmark = pytest.mark.kernel


def _wait_running_tool(kernel: Kernel) -> None:
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("part", {}).get("status") == "running"
        )
    )


def _first_turn(kernel: Kernel, server: Any, folder: Path) -> dict[str, tuple[str, str]]:
    server.queue(*FIRST_TURN)
    assert kernel.execute("%agent --wait write the notes").status == "ok"
    before = finished(db_path(folder))
    assert len(before) == 3, before
    return before


def test_stop_over_the_comm_cancels(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees: the slow answer stops within a second of Stop; the text so far stays."""
    kernel = start_kernel(frontend=True)
    before = _first_turn(kernel, scripted_server, tmp_path)
    scripted_server.queue(Reply(text="slow " * 400, chunk_size=5, delay_per_chunk=0.05))
    kernel.execute("%agent go slowly")
    first = kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("kind") == "delta"
        )
    )
    time.sleep(0.5)
    stopped_at = time.monotonic()
    kernel.comm_send(first["content"]["comm_id"], {"type": "stop"})
    _wait_idle(kernel, timeout=20)
    assert time.monotonic() - stopped_at < 10  # the answer would stream for 20 s more
    streamed = "".join(m.get("text", "") for m in _widget_traffic(kernel) if m.get("kind") == "delta")
    assert "slow" in streamed and len(streamed) < len("slow " * 400)
    assert kernel.execute("print('kernel still responsive')").stdout.strip() == "kernel still responsive"
    assert_kept(db_path(tmp_path), before)


def test_kernel_interrupt_during_python_tool(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees: the card "Tool execution aborted" with "working"; the kernel stays usable."""
    kernel = start_kernel(frontend=True)
    before = _first_turn(kernel, scripted_server, tmp_path)
    code = "import time\nprint('working', flush=True)\ntime.sleep(60)"
    scripted_server.queue(Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]))
    kernel.execute("%agent run the slow thing")
    _wait_running_tool(kernel)
    time.sleep(0.5)
    kernel.interrupt()
    _wait_idle(kernel, timeout=30)
    assert kernel.execute("print('alive')").stdout.strip() == "alive"
    after = assert_kept(db_path(tmp_path), before)
    [aborted] = [v for k, v in after.items() if k not in before and v[0] == "tool-error"]
    assert aborted == ("tool-error", "Tool execution aborted")


def test_sigkill_during_a_tool_then_resume(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees, after restarting: the earlier turns; the killed tool as interrupted; a new answer."""
    kernel = start_kernel(frontend=True)
    before = _first_turn(kernel, scripted_server, tmp_path)
    scripted_server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "sleep 60"}))]))
    kernel.execute("%agent wait a minute")
    _wait_running_tool(kernel)
    kernel.kill()
    kernel.restart()
    scripted_server.queue(Reply(text="resumed"))
    kernel.execute("%load_ext jupyter_agent")
    again = kernel.execute("%agent --wait what happened?")
    assert again.status == "ok", again.error
    messages = scripted_server.requests[-1]["body"]["messages"]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users == ["write the notes", "wait a minute", "what happened?"]
    tools = [m["content"] for m in messages if m["role"] == "tool"]
    assert tools[-1] == "[Tool execution was interrupted]"
    assert ("text", "resumed") in assert_kept(db_path(tmp_path), before).values()


def test_sigkill_mid_stream_then_resume(start_kernel: Any, scripted_server: Any, tmp_path: Path) -> None:
    """User sees, in a new kernel: the earlier turns, the answer as far as it had streamed, and
    the next prompt carrying on in the same session."""
    kernel = start_kernel(frontend=True)
    before = _first_turn(kernel, scripted_server, tmp_path)
    story = " ".join(f"sentence{i}." for i in range(2000))
    scripted_server.queue(Reply(text=story, chunk_size=10, delay_per_chunk=0.01))
    kernel.execute("%agent tell a long story")
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("kind") == "delta"
        )
    )
    kernel.drain(1.5)  # streaming for a while: the store writes the growing text every ~200 ms
    kernel.kill()
    assert len(scripted_server.requests) == 3  # the story was still streaming when it died
    kernel.restart()
    scripted_server.queue(Reply(text="picked up again"))
    assert kernel.execute("%load_ext jupyter_agent").status == "ok"
    again = kernel.execute("%agent --wait where were we?")
    assert again.status == "ok", again.error
    messages = scripted_server.requests[-1]["body"]["messages"]
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert users == ["write the notes", "tell a long story", "where were we?"]
    said = [m["content"] for m in messages if m["role"] == "assistant" and m.get("content")]
    assert said[-1] != story and story.startswith(said[-1])  # the model sees how far it got
    assert_kept(db_path(tmp_path), before)
    from jupyter_agent.storage.sqlite_store import SqliteStore

    with SqliteStore(db_path(tmp_path)) as store:
        [session] = store.list_sessions(None)
        texts = [p.text for m in store.messages(session.id) for p in m.parts if p.type == "text"]
    partial = texts[-3]
    assert texts[-2:] == ["where were we?", "picked up again"]
    assert 0 < len(partial) < len(story) and story.startswith(partial)
