"""Notebooks run unattended: papermill and ``jupyter nbconvert --execute`` as real processes
against the scripted server.

What a CI user needs: a failed agent cell fails the run (non-zero exit, one line, later cells
not run) unless ``--no-raise``; each run starts a fresh session of *its* notebook (``--continue``
picks that notebook's latest, never another's); the answer streams into papermill's log as it
arrives; and nothing of ours lands in the runner's log as a warning.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest
from scripted_model import ScriptedModel
from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore

pytestmark = pytest.mark.kernel
TIMEOUT = 300
LONG = "".join(f"word{i} " for i in range(1200))[:8000]
NOISE = ("No handler found", "jupyter_agent", "litellm", "Task was destroyed", "coroutine")
"""What must not show in a runner's log (ours, or caused by us)."""


def _notebook(path: Path, *cells: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, path)
    return path


def _folder(tmp_path: Path) -> None:
    # a failing provider fails at once: no retries, no backoff to wait for
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"retries": 0}))


def _earlier_session(tmp_path: Path, notebook: Path, prompt: str) -> str:
    """A session of ``notebook`` from an earlier run (real SQLite, as a kernel would leave it)."""
    config = load_config(tmp_path, {"model": "openai/test"}, global_dir=tmp_path / "none")
    store = SqliteStore.for_directory(tmp_path)
    runtime = build_runtime(
        config=config,
        store=store,
        project_root=tmp_path,
        working_dir=tmp_path,
        notebook_path=str(notebook.resolve()),
        client=ScriptedModel(),
    )
    session_id = runtime.new_session().id
    runtime.add_user_message(session_id, prompt)
    store.close()
    return session_id


def _env(server: Any) -> dict[str, str]:
    return {
        **os.environ,
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "PYTHONFAULTHANDLER": "1",
    }


def _user_texts(request: dict[str, Any]) -> str:
    return json.dumps([m for m in request["body"]["messages"] if m["role"] == "user"])


def _cell_errors(path: Path) -> list[dict[str, Any]]:
    nb = nbformat.read(path, as_version=4)
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]


def test_papermill_fails_on_a_failed_run_streams_the_answer_and_starts_fresh(
    tmp_path: Path, scripted_server: Any
) -> None:
    _folder(tmp_path)
    notebook = _notebook(
        tmp_path / "report.ipynb",
        "%load_ext jupyter_agent",
        "%%agent\nwrite the long report",
        "%%agent --no-raise\nthis one may fail",
        "print('after the soft failure')",
        "%%agent\nthis one must not fail",
        "print('never printed')",
    )
    old = _earlier_session(tmp_path, notebook, "a prompt of yesterday's run")
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": "rows = 6 * 7"}))]),
        Reply(text=LONG, chunk_size=40, delay_per_chunk=0.03),  # ~6 s of streaming
        ErrorReply(500, "upstream exploded"),
        ErrorReply(500, "upstream exploded"),
    )
    cmd = [sys.executable, "-m", "papermill", "--log-output", notebook.name, "out.ipynb"]
    # run from a notebook (`!papermill …`): the kernel inherits the launching notebook's
    # JPY_SESSION_NAME, yet no front end shows it; it must still run headless, as report.ipynb
    env = {**_env(scripted_server), "JPY_SESSION_NAME": str(tmp_path / "launcher.ipynb")}
    proc = subprocess.Popen(
        cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    log: list[str] = []
    seen_while_streaming: list[bool] = []

    def read() -> None:
        assert proc.stderr is not None
        while chunk := proc.stderr.read(64):
            log.append(chunk)
            if not seen_while_streaming and "word0 word1 word2" in "".join(log):
                answer = scripted_server.requests[1] if len(scripted_server.requests) > 1 else {}
                seen_while_streaming.append("finished" not in answer)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    proc.wait(timeout=TIMEOUT)
    reader.join(10)
    err = "".join(log)

    # 1. the failed cell failed the run: non-zero exit, later cells not run, one line
    assert proc.returncode != 0, err[-3000:]
    assert "after the soft failure" in err  # --no-raise: the error is shown and the run goes on
    assert "never printed" not in err
    (error,) = _cell_errors(tmp_path / "out.ipynb")
    assert error["ename"] == "AgentRunError" and "The provider failed (500)" in error["evalue"]
    assert error["traceback"] == [f"AgentRunError: {error['evalue']}"]  # no frames of ours
    # 7. the answer reached papermill's log while the server was still sending it, after one
    # line for the tool call
    assert seen_while_streaming == [True], err[-3000:]
    assert "[python rows = 6 * 7]\n" in err and err.index("[python rows") < err.index("word0 word1")
    # the saved notebook keeps the transcript in its place, not the answer twice
    cells = nbformat.read(tmp_path / "out.ipynb", as_version=4).cells
    outputs = next(c.outputs for c in cells if "write the long report" in c.source)
    assert [o.output_type for o in outputs] == ["display_data"]
    assert LONG[:200] in outputs[0]["data"]["text/markdown"]
    # 2. a fresh session, of this notebook: yesterday's prompt is not sent again
    first = _user_texts(scripted_server.requests[0])
    assert "write the long report" in first and "yesterday" not in first
    store = SqliteStore.for_directory(tmp_path)
    sessions = store.list_sessions(str(notebook.resolve()))
    assert len(sessions) == 2 and old in {s.id for s in sessions}
    store.close()
    # 8. nothing of ours in the runner's log
    assert not [n for n in NOISE if n in err], err[-3000:]


def test_nbconvert_fails_on_a_failed_run_and_continue_stays_in_its_notebook(
    tmp_path: Path, scripted_server: Any
) -> None:
    _folder(tmp_path)
    mine = _notebook(
        tmp_path / "mine.ipynb",
        "%load_ext jupyter_agent",
        "%%agent --continue\nand now the totals",
        "%%agent\nthis fails",
        "print('never printed')",
    )
    _earlier_session(tmp_path, mine, "mine: load the data")
    _earlier_session(tmp_path, tmp_path / "other.ipynb", "other: unrelated work")  # the latest here
    scripted_server.queue(Reply(text="Totals: 42."), ErrorReply(500, "upstream exploded"))
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute", mine.name]
    cmd += ["--output", "mine.out"]
    done = subprocess.run(
        cmd, cwd=tmp_path, env=_env(scripted_server), capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode != 0, done.stderr[-3000:]
    assert "AgentRunError: The provider failed (500)" in done.stderr
    assert "never printed" not in done.stderr
    # --continue took this notebook's latest session, not the folder's (another notebook's)
    continued = _user_texts(scripted_server.requests[0])
    assert "mine: load the data" in continued and "and now the totals" in continued
    assert "other: unrelated work" not in continued
    assert not [n for n in NOISE if n in done.stderr], done.stderr[-3000:]
