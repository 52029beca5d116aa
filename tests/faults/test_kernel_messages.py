"""In a real kernel: broken settings and stores print one line; no library log lines in cells."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from faults_support import BAD_CONFIGS, one_message
from scripted_server import Reply

pytestmark = pytest.mark.kernel

FOREIGN = ("LiteLLM", "litellm", "logging_worker", "httpx", "asyncio", "Task was destroyed")


def test_two_waited_runs_print_no_library_noise(start_kernel: Any, scripted_server: Any) -> None:
    """User sees: two answers; no "LiteLLM:WARNING: logging_worker.py … event loop changed"."""
    scripted_server.queue(Reply(text="first"), Reply(text="second"))
    kernel = start_kernel()
    outputs = [kernel.execute(f"%%agent --wait --new\nsay {n}") for n in ("one", "two")]
    for result in outputs:
        assert result.status == "ok"
        text = result.stdout + result.stderr
        assert not [word for word in FOREIGN if word in text], text


def test_non_utf8_config_in_a_kernel_names_the_file(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: "<folder>/jupyter-agent.json: is not UTF-8 text (…); save it as UTF-8"."""
    (tmp_path / "jupyter-agent.json").write_bytes(b'{"model": "caf\xe9"}')
    kernel = start_kernel()
    shown = one_message(kernel.execute("%agent --wait hello"))
    assert f"{tmp_path / 'jupyter-agent.json'}: is not UTF-8 text" in shown


def test_top_level_array_config_in_a_kernel(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: "<file>: the top level must be a JSON object", no traceback."""
    (tmp_path / "jupyter-agent.json").write_text('["openai/x"]')
    kernel = start_kernel()
    assert "the top level must be a JSON object" in one_message(kernel.execute("%agent --wait hello"))


def test_foreign_store_in_a_kernel(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: the store path and "did not create", no traceback; the file untouched."""
    import sqlite3

    folder = tmp_path / ".jupyter-agent"
    folder.mkdir()
    conn = sqlite3.connect(folder / "sessions.db")
    conn.execute("CREATE TABLE birds (name TEXT)")
    conn.commit()
    conn.close()
    kernel = start_kernel()
    assert "did not create (tables: birds)" in one_message(kernel.execute("%agent --wait hello"))


def _one_message(result: Any) -> str:
    """The cell's message (printed, or the one line a headless cell raises): no traceback,
    nothing on stderr."""
    assert result.stderr.strip() == "", result.stderr
    return one_message(result)


def test_every_broken_setting_in_a_kernel_is_one_message(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """User sees, in the cell, for each bad %env value and each broken jupyter-agent.json:
    the variable or file and what is wrong; once fixed, the next prompt works, no restart."""
    kernel = start_kernel()
    bad_env = {
        "JUPYTER_AGENT_OUTPUT_TOKEN_MAX": (
            "abc",
            "JUPYTER_AGENT_OUTPUT_TOKEN_MAX must be a positive integer, got 'abc'",
        ),
        "JUPYTER_AGENT_API_BASE": (
            "localhost:11434",
            "JUPYTER_AGENT_API_BASE: 'localhost:11434' is not a server",
        ),
    }
    for var, (value, expected) in bad_env.items():
        saved = kernel.execute(f"import os; _saved = os.environ[{var!r}] if {var!r} in os.environ else ''")
        assert saved.status == "ok"
        kernel.execute(f"%env {var}={value}")
        out = _one_message(kernel.execute("%agent --wait hello"))
        assert expected in out, out
        kernel.execute(f"os.environ[{var!r}] = _saved")
    config = tmp_path / "jupyter-agent.json"
    for case, (data, expected) in BAD_CONFIGS.items():
        config.write_bytes(data)
        for cell in ("%agent --wait hello", "%compact"):
            out = _one_message(kernel.execute(cell))
            assert f"{config}: " in out and expected in out, (case, cell, out)
    config.write_bytes(b'\xef\xbb\xbf{"steps": 5}')  # saved by Notepad: a BOM is fine
    scripted_server.queue(Reply(text="fixed and answered"))
    answered = kernel.execute("%agent --wait hello")
    _one_message(answered)
    assert "fixed and answered" in str(answered.outputs)
    # read again for every prompt: a bad value set later is a message too, not a ValueError
    kernel.execute("%env JUPYTER_AGENT_OUTPUT_TOKEN_MAX=lots")
    out = _one_message(kernel.execute("%agent --wait hello"))
    assert "JUPYTER_AGENT_OUTPUT_TOKEN_MAX must be a positive integer, got 'lots'" in out


def test_export_that_cannot_be_written_is_one_line(start_kernel: Any, tmp_path: Path) -> None:
    """User sees: "<folder>/<session>.md: is a directory; a folder has that name: give another
    file name" in the cell, no traceback."""
    kernel = start_kernel()
    created = _one_message(kernel.execute("%agent new"))
    sid = created.split()[-1]
    (tmp_path / f"{sid}.md").mkdir()  # the file name is taken by a folder
    out = _one_message(kernel.execute("%agent export --format md"))
    expected = f"{tmp_path / sid}.md: is a directory; a folder has that name: give another file name"
    assert out.strip() == expected, out
