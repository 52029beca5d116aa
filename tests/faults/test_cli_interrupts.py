"""A headless run stopped halfway: Ctrl-C mid-answer, ``kill -9`` before the model replied.

What had been said stays: the prompt (stored before the request goes out), the answer as
far as it had streamed, and the next ``--continue`` carries on in the same session.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

from cli_process import start_run, wait_for
from cli_runner import run_cli
from scripted_server import Reply

from jupyter_agent.core.messages import AssistantMessage, TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore

LONG = "streamed word " * 300


def _history(folder: Path) -> list[tuple[str, str]]:
    """(role, text) of every message of the only session, as a new process reads it."""
    with SqliteStore.for_directory(folder) as store:
        [session] = store.list_sessions(None)
        out = []
        for m in store.messages(session.id):
            text = "".join(p.text for p in m.parts if isinstance(p, TextPart) and not p.synthetic)
            out.append((m.info.role, text))
        return out


def _continue(server: Any, folder: Path, prompt: str) -> Any:
    server.queue(Reply(text=f"answer to {prompt}"))
    result = run_cli(
        ["run", "--continue", "--model", "openai/test", "--api-base", server.base_url, prompt], folder
    )
    assert result.returncode == 0, result.stderr
    assert f"answer to {prompt}" in result.stdout
    return result


def test_ctrl_c_mid_answer_keeps_what_streamed(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: "error: stopped; the interrupted step is kept in the session", exit 130,
    no traceback; the prompt and the streamed start of the answer are in the session, and
    `--continue` answers the next prompt there."""
    scripted_server.queue(Reply(text=LONG, chunk_size=4, delay_per_chunk=0.05))
    run = start_run(scripted_server, tmp_path, "first question")
    try:
        wait_for(lambda: len(scripted_server.requests) == 1, what="the request")
        time.sleep(2)  # some of the answer streams (and is flushed to the store)
        run.send_signal(signal.SIGINT)
        _out, err = run.communicate(timeout=30)
    finally:
        run.kill()
    assert run.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "error: stopped; the interrupted step is kept in the session" in err
    history = _history(tmp_path)
    assert history[0] == ("user", "first question")
    role, text = history[1]
    assert role == "assistant" and text and LONG.startswith(text) and text != LONG
    _continue(scripted_server, tmp_path, "second question")
    roles = [(role, text) for role, text in _history(tmp_path)]
    assert roles[0] == ("user", "first question") and roles[1][1] == text
    assert roles[-2:] == [("user", "second question"), ("assistant", "answer to second question")]


def test_kill_before_the_reply_keeps_the_prompt(tmp_path: Path, scripted_server: Any) -> None:
    """`kill -9` while the model is thinking. User sees, in `sessions show`: the prompt;
    the next `--continue` carries on in that session (the cut answer is closed)."""
    scripted_server.queue(Reply(text="too late", chunk_size=1, delay_per_chunk=30))
    run = start_run(scripted_server, tmp_path, "a prompt worth keeping")
    try:
        wait_for(lambda: len(scripted_server.requests) == 1, what="the request")
        run.send_signal(signal.SIGKILL)
        run.wait(timeout=20)
    finally:
        run.kill()
        run.communicate()
    assert _history(tmp_path)[0] == ("user", "a prompt worth keeping")
    with SqliteStore.for_directory(tmp_path) as store:
        [session] = store.list_sessions(None)
    shown = run_cli(["sessions", "show", session.id], tmp_path)
    assert shown.returncode == 0 and "a prompt worth keeping" in shown.stdout
    _continue(scripted_server, tmp_path, "still there?")
    with SqliteStore.for_directory(tmp_path) as store:
        infos = [m.info for m in store.messages(session.id)]
    assert isinstance(infos[0], UserMessage) and isinstance(infos[-1], AssistantMessage)
    assert all(i.time.completed is not None for i in infos if isinstance(i, AssistantMessage))
    assert infos[-1].error is None
