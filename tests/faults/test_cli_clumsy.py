"""A clumsy user at the terminal: typos in flags and settings, files saved by other editors.

Each case is something tried by hand that reached the user as a traceback, half a minute of
retries against a nonsense address, or folders created where none were meant to be.
"""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_cli
from faults_support import one_line

from jupyter_agent.core.messages import Session
from jupyter_agent.storage.sqlite_store import SqliteStore

NOT_A_URL = "is not a server address; give a URL such as http://localhost:11434"


def test_config_saved_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """Windows Notepad starts UTF-8 files with a BOM. User sees: the sessions, no JSON error."""
    (tmp_path / "jupyter-agent.json").write_bytes(b'\xef\xbb\xbf{"model": "openai/test"}')
    with SqliteStore.for_directory(tmp_path) as store:
        store.create_session(Session(id="ses_1", title="kept"))
    result = run_cli(["sessions", "list"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ses_1" in result.stdout and result.stderr == ""


def test_api_base_that_is_not_a_url_fails_at_once(tmp_path: Path) -> None:
    """User sees, for --api-base or JUPYTER_AGENT_API_BASE without http://: which setting,
    what a good value looks like, exit 2 — not four retries of a "500" from litellm."""
    flag = run_cli(["run", "--model", "openai/test", "--api-base", "localhost:11434", "hi"], tmp_path)
    assert flag.returncode == 2
    assert one_line(flag).startswith(f"error: --api-base: 'localhost:11434' {NOT_A_URL}")
    env = run_cli(["run", "--model", "openai/test", "hi"], tmp_path, JUPYTER_AGENT_API_BASE="notaurl")
    assert env.returncode == 2
    assert one_line(env).startswith(f"error: JUPYTER_AGENT_API_BASE: 'notaurl' {NOT_A_URL}")
    assert not (tmp_path / ".jupyter-agent").exists()  # nothing was started


def test_notebook_in_a_missing_folder_creates_nothing(tmp_path: Path) -> None:
    """A typo in --notebook. User sees: "the folder … does not exist", exit 2; no folder and
    no session store appear at the mistyped place."""
    wrong = tmp_path / "typo" / "analysis.ipynb"
    result = run_cli(["run", "--notebook", str(wrong), "--model", "openai/test", "hi"], tmp_path)
    assert result.returncode == 2
    assert one_line(result) == (
        f"error: --notebook {wrong}: the folder {wrong.parent} does not exist. "
        "Create it first or point --notebook at an existing folder."
    )
    assert not wrong.parent.exists()
    listing = run_cli(["sessions", "--notebook", str(wrong), "list"], tmp_path)
    assert listing.returncode == 2 and "does not exist" in one_line(listing)
    assert not wrong.parent.exists()


def test_empty_prompt_is_a_usage_error(tmp_path: Path) -> None:
    """`jupyter-agent run ""` (an unset shell variable). User sees: the prompt is empty, exit 2;
    no session is created and nothing is sent."""
    result = run_cli(["run", "--model", "openai/test", "--api-base", "http://127.0.0.1:9", "  "], tmp_path)
    assert result.returncode == 2
    assert one_line(result) == (
        'error: the prompt is empty. Give the text to send, e.g. jupyter-agent run "summarise x.csv"'
    )
    assert not (tmp_path / ".jupyter-agent").exists()
