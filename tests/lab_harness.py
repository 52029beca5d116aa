"""A real JupyterLab started on 127.0.0.1 for the browser tests (driven by Debian's Chromium)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
TOKEN = "jupyter-agent-test"


def write_notebook(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@dataclass
class Lab:
    base: str
    root: Path
    app: str = "lab"

    def url(self, notebook: str) -> str:
        if self.app == "notebook":  # Notebook 7: one notebook per page
            return f"{self.base}/notebooks/{notebook}?token={TOKEN}"
        # `reset`: a fresh workspace, so notebooks opened by earlier pages do not come back
        return f"{self.base}/lab/tree/{notebook}?reset&token={TOKEN}"


@contextmanager
def running_lab(root: Path, server: Any, app: str = "lab", *, configured: bool = True) -> Iterator[Lab]:
    """``jupyter lab`` (or ``app="notebook"``: Notebook 7) on a port the OS picks (read back from
    the server's info file: a port chosen here could be taken by the other test worker before the
    server binds it) whose kernels talk to the scripted model server; the page exposes
    ``window.jupyterapp`` for commands. ``configured=False``: no model and no key anywhere (a
    newcomer's first start); the user's config folder is ``root/.config``."""
    settings = root / ".lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True, exist_ok=True)
    # no "fetch Jupyter news?" toast over the sidebar (and no request for news)
    (settings / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    model = {
        "JUPYTER_AGENT_MODEL": server.model,
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
    }
    env = {
        **os.environ,
        **(model if configured else {}),
        "XDG_CONFIG_HOME": str(root / ".config"),
        "JUPYTER_CONFIG_DIR": str(root / ".jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(root / ".rt"),
        "JUPYTERLAB_SETTINGS_DIR": str(root / ".lab-settings"),
    }
    log_path = root / "lab.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab" if app == "lab" else "notebook",
            "--no-browser",
            "--ip=127.0.0.1",
            "--port=0",
            f"--ServerApp.token={TOKEN}",
            "--ServerApp.allow_root=True",
            f"--ServerApp.root_dir={root}",
            *(
                [
                    "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                    "--LabApp.expose_app_in_browser=True",
                ]
                if app == "lab"
                else ["--JupyterNotebookApp.expose_app_in_browser=True"]
            ),
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        base = _wait_until_serving(proc, root / ".rt" / f"jpserver-{proc.pid}.json", log_path)
        yield Lab(base, root, app)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _wait_until_serving(proc: subprocess.Popen[bytes], info: Path, log_path: Path) -> str:
    """The server's base URL once it answers."""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            base = f"http://127.0.0.1:{json.loads(info.read_text())['port']}"
            urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
            return base
        except (OSError, ValueError, KeyError):  # no info file yet, half written, or not answering
            time.sleep(0.5)
    pytest.fail("jupyter did not start:\n" + log_path.read_text()[-3000:])


def open_notebook(page: Any, url: str) -> None:
    """Load a notebook and wait until its kernel is idle."""
    page.goto(url)
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    # the notebook's own session (the page exposes the app): the status bar says "Idle" before
    # the kernel is connected, and keys pressed then advance without running the cell
    page.wait_for_function(
        "() => { const k = window.jupyterapp?.shell.currentWidget?.sessionContext?.session?.kernel;"
        " return k?.connectionStatus === 'connected' && k?.status === 'idle'; }",
        timeout=90_000,
    )
