"""The command ends when its work is done, whatever threads a library left behind.

Seen in CI: ``jupyter-agent run`` printed its last line and then never exited (killed
after 120 s) while an import still ran on a daemon thread. The command now writes
everything, runs the exit handlers and leaves without the interpreter's teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from jupyter_agent.core.messages import Session
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore

_LEFT_BEHIND = textwrap.dedent(
    """
    import sys, threading, types
    threading.Thread(target=threading.Event().wait, name="library-worker").start()  # never joined
    stuck = threading.Event()
    def _import_forever():  # a daemon thread caught mid-import holds that module's lock
        import importlib.abc, importlib.util
        class Slow(importlib.abc.Loader):
            def create_module(self, spec): return None
            def exec_module(self, module): stuck.set(); threading.Event().wait()
        sys.modules.pop("slow_library", None)
        spec = importlib.util.spec_from_loader("slow_library", Slow())
        importlib._bootstrap._load(spec)
    threading.Thread(target=_import_forever, daemon=True).start()
    stuck.wait()
    sys.argv = ["jupyter-agent", *sys.argv[1:]]
    from jupyter_agent.cli import entry
    entry()
    """
)


def _command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _LEFT_BEHIND, *args],
        cwd=tmp_path,
        env={**os.environ, "JUPYTER_AGENT_API_KEY": "sk-test"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_thread_left_running_does_not_hold_the_exit(tmp_path: Path) -> None:
    """User sees: the listing, then the prompt back (it hung before: a non-daemon thread waits forever)."""
    store = SqliteStore(db_path(tmp_path))
    session = store.create_session(Session(id="ses_kept0001", title="kept"))
    store.close()
    result = _command(tmp_path, "sessions", "list")
    assert result.returncode == 0, result.stderr
    assert session.id in result.stdout and "kept" in result.stdout


def test_a_usage_error_still_exits_with_its_code(tmp_path: Path) -> None:
    result = _command(tmp_path, "sessions", "frobnicate")
    assert result.returncode == 2, result.stderr
    assert "invalid choice" in result.stderr
