"""A real JupyterLab in real Chromium: %agent streams text, a tool card and the gauge."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
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

playwright_api = pytest.importorskip("playwright.sync_api")
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (scripts/install.sh installs it with apt)", allow_module_level=True
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def lab(tmp_path: Path, scripted_server: Any) -> Iterator[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext jupyter_agent"),
        nbformat.v4.new_code_cell("%agent what files are here?"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "demo.ipynb")
    port, token = _free_port(), "jupyter-agent-test"
    env = {
        **os.environ,
        "JUPYTER_AGENT_MODEL": scripted_server.model,
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_CONFIG_DIR": str(tmp_path / ".jupyter-config"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / ".rt"),
    }
    log = open(tmp_path / "lab.log", "w")  # noqa: SIM115 - closed in teardown
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--ServerApp.token={token}",
            "--ServerApp.allow_root=True",
            f"--ServerApp.root_dir={tmp_path}",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("jupyter lab did not start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
    yield f"{base}/lab/tree/demo.ipynb?token={token}"
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def test_agent_widget_streams_in_jupyterlab(lab: str, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("list", json.dumps({}))]),
        Reply(text="Here is **one notebook**: `demo.ipynb`.", chunk_size=3, delay_per_chunk=0.01),
    )
    ARTIFACTS.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        try:
            page.goto(lab)
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
            page.wait_for_function(
                "() => (document.querySelector('#jp-main-statusbar')?.innerText || '').includes('Idle')",
                timeout=90_000,
            )
            page.click(".jp-Cell .jp-InputArea-editor")
            page.keyboard.press("Escape")
            page.keyboard.press("Shift+Enter")
            page.keyboard.press("Shift+Enter")
            text = page.locator("[data-testid=ja-text]")
            text.first.wait_for(timeout=60_000)
            page.wait_for_function(
                "() => [...document.querySelectorAll('[data-testid=ja-text]')]"
                ".some(e => e.textContent.includes('one notebook'))",
                timeout=60_000,
            )
            tool = page.locator("[data-testid=ja-tool]").first
            assert tool.get_attribute("data-tool") == "list"
            assert page.locator("[data-testid=ja-tool-status]").first.text_content() == "completed"
            assert page.locator(".ja-text strong").first.text_content() == "one notebook"  # markdown
            page.wait_for_function(
                "() => (document.querySelector('[data-testid=ja-gauge]')?.textContent || '')"
                ".includes('tokens')",
                timeout=30_000,
            )
        finally:
            page.screenshot(path=str(ARTIFACTS / "lab-widget.png"), full_page=True)
            browser.close()
