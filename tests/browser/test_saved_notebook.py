"""A saved notebook keeps the agent's work: JupyterLab after a kernel restart, Notebook 7,
nbconvert. Also the side panel in Notebook 7 (it has no ILabShell).

Screenshots: test-artifacts/saved-lab-after-restart.png, saved-notebook7.png.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_harness import ARTIFACTS, TOKEN, Lab, open_notebook, running_lab, write_notebook
from scripted_server import Reply, ScriptedServer, ToolCall

pytestmark = pytest.mark.browser
TRANSCRIPT = ".jp-NotebookPanel .jp-agent-transcript"
ANSWER = "Here is **one notebook**: `demo.ipynb`.\n\n```python\nprint('hi')\n```"
WIDGET_ERRORS = ("Error displaying widget", "model not found", "object at 0x")


def _queue(server: ScriptedServer) -> None:
    server.queue(
        Reply(tool_calls=[ToolCall("list", json.dumps({}))]),
        Reply(text=ANSWER, chunk_size=4, delay_per_chunk=0.01),
    )


def _run_all(page: Any) -> None:
    page.click(".jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")


def _wait_transcript(page: Any) -> Any:
    page.wait_for_function(
        "(sel) => [...document.querySelectorAll(sel)].some(e => e.innerText.includes('one notebook'))",
        arg=TRANSCRIPT,
        timeout=60_000,
    )
    return page.locator(TRANSCRIPT).first


def _saved(path: Path, text: str = "jp-agent-transcript") -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        raw = path.read_text()
        if text in raw:
            return json.loads(raw)  # type: ignore[no-any-return]
        time.sleep(0.3)
    raise AssertionError(f"{path.name} was not saved with the transcript")


def _restart_kernels(lab: Lab) -> None:
    """What Kernel → Restart does: the kernel's widget models are gone afterwards."""
    with urllib.request.urlopen(f"{lab.base}/api/kernels?token={TOKEN}") as r:
        kernels = json.load(r)
    for k in kernels:
        req = urllib.request.Request(f"{lab.base}/api/kernels/{k['id']}/restart?token={TOKEN}", method="POST")
        urllib.request.urlopen(req, timeout=60).close()


def _check_transcript(page: Any) -> None:
    transcript = _wait_transcript(page)
    assert transcript.locator("strong").first.text_content() == "one notebook"
    code = transcript.locator("pre code.language-python").first
    assert code.text_content().strip() == "print('hi')"
    # highlighted like the live view, with the code actions (the extension does both)
    assert code.locator(".hljs-string").first.text_content(timeout=10_000) == "'hi'"
    copy = transcript.locator(".ja-codeblock:has(code.language-python) [data-testid=ja-code-copy]")
    assert copy.first.is_visible()
    assert "list" in transcript.inner_text() and "completed" in transcript.inner_text()
    status = transcript.locator(".jp-agent-transcript-status").inner_text()  # the run's status line
    assert status.startswith("done · ") and "openai/test" in status and "tokens" in status, status
    muted, text = (
        transcript.locator(sel).first.evaluate("e => getComputedStyle(e).color")
        for sel in (".jp-agent-transcript-status", ".jp-agent-transcript-text")
    )
    assert muted != text  # the status line reads as a footnote, not as part of the answer
    assert transcript.get_attribute("data-session-id", timeout=5_000).startswith("ses_")
    body = page.locator(".jp-NotebookPanel").first.inner_text()
    assert not [e for e in WIDGET_ERRORS if e in body], body


@pytest.fixture
def lab(tmp_path: Path, scripted_server: ScriptedServer, chromium: Any) -> Iterator[Lab]:
    write_notebook(
        tmp_path / "demo.ipynb",
        "%load_ext jupyter_agent",
        "%agent what files are here?",
        "%agent --new a second session",
    )
    with running_lab(tmp_path, scripted_server) as running:
        yield running


def test_saved_notebook_shows_the_transcript_after_a_restart(
    lab: Lab, scripted_server: ScriptedServer, chromium: Any
) -> None:
    _queue(scripted_server)
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_notebook(page, lab.url("demo.ipynb"))
        _run_all(page)
        _check_transcript(page)  # the live widget was replaced, not shown twice
        # a later cell in another session: the latest session is no longer the first cell's
        scripted_server.queue(Reply(text="Second session answer."))
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "(sel) => [...document.querySelectorAll(sel)].some(e => e.innerText.includes('Second session'))",
            arg=TRANSCRIPT,
            timeout=60_000,
        )
        assert page.locator(".jp-NotebookPanel .ja-root").count() == 0
        page.keyboard.press("Control+s")
        nb = _saved(lab.root / "demo.ipynb", "Second session answer.")
        second = nb["cells"][2]["metadata"]["jupyter_agent"]["session_id"]
        _restart_kernels(lab)
        page.reload()
        page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
        _check_transcript(page)
        page.screenshot(path=str(ARTIFACTS / "saved-lab-after-restart.png"), full_page=True)
        # the cell remembers its session: its context menu opens it in the panel
        session_id = nb["cells"][1]["metadata"]["jupyter_agent"]["session_id"]
        page.locator(".jp-NotebookPanel .jp-CodeCell").nth(1).click(button="right")
        page.locator(".lm-Menu-item", has_text="Show This Cell's Agent Session").click()
        panel = page.locator("#jupyter-agent-panel")
        page.wait_for_selector('#jupyter-agent-panel[data-state="missing"]', timeout=60_000)
        panel.locator("[data-testid=ja-load-extension]").click()
        page.wait_for_function(
            "(sid) => document.querySelector('#jupyter-agent-panel [data-testid=ja-session-select]')"
            "?.value === sid && (document.querySelector('#jupyter-agent-panel')?.innerText || '')"
            ".includes('one notebook')",
            arg=session_id,
            timeout=60_000,
        )
        assert session_id != second
    finally:
        page.screenshot(path=str(ARTIFACTS / "saved-lab-cell-session.png"), full_page=True)
        page.close()
    outputs = nb["cells"][1]["outputs"]
    assert len(outputs) == 1, outputs
    output = outputs[0]
    assert output["metadata"]["jupyter_agent"]["session_id"] == session_id
    assert "application/vnd.jupyter.widget-view+json" not in output["data"]
    raw = (lab.root / "demo.ipynb").read_text()
    assert len(raw) < 20_000, len(raw)  # no widget state, no JavaScript per cell
    assert "<script" not in raw and "widget-state" not in raw and "_esm" not in raw
    html = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--stdout", "demo.ipynb"],
        cwd=lab.root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "<strong>one notebook</strong>" in html and "object at 0x" not in html
    (ARTIFACTS / "saved-nbconvert.html").write_text(html)


def test_notebook7_shows_the_transcript_and_the_side_panel(
    tmp_path: Path, scripted_server: ScriptedServer, chromium: Any
) -> None:
    """Notebook 7: the transcript after a restart; the panel from the Agent button (with its
    icon) in the notebook's toolbar, back by itself after a reload; Fix with agent and a staged
    edit's Accept there too."""
    write_notebook(
        tmp_path / "demo.ipynb", "%load_ext jupyter_agent", "%agent what files are here?", "ratio = 1 / 0"
    )
    _queue(scripted_server)
    scripted_server.queue(Reply(text="Answer in the Notebook 7 panel."))
    with running_lab(tmp_path, scripted_server, app="notebook") as nb7:
        page = chromium.new_page(viewport={"width": 1400, "height": 1000})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        panel = page.locator("#jupyter-agent-panel")
        try:
            open_notebook(page, nb7.url("demo.ipynb"))
            _run_all(page)
            _check_transcript(page)
            page.keyboard.press("Control+s")
            _saved(tmp_path / "demo.ipynb")
            _restart_kernels(nb7)
            page.reload()
            open_notebook(page, nb7.url("demo.ipynb"))
            _check_transcript(page)
            assert not [e for e in errors if "ILabShell" in e], errors
            # the side panel lives in Notebook 7's right area, opened from the toolbar
            button = page.locator(".jp-NotebookPanel-toolbar [data-testid=ja-toolbar-agent]")
            assert button.locator("svg").count() == 1 and "Agent" in button.inner_text()
            button.click()
            panel.wait_for(state="visible", timeout=30_000)
            page.wait_for_selector(
                '#jupyter-agent-panel[data-state="missing"], #jupyter-agent-panel[data-state="open"]',
                timeout=60_000,
            )
            if panel.get_attribute("data-state") == "missing":
                panel.locator("[data-testid=ja-load-extension]").click()
            page.wait_for_selector('#jupyter-agent-panel[data-state="open"]', timeout=60_000)
            assert panel.bounding_box()["width"] >= 400  # not the cramped default
            box = panel.locator("[data-testid=ja-prompt]")
            box.fill("hello from notebook 7")
            box.press("Enter")
            _panel_says(page, "Answer in the Notebook 7 panel.")
            # Fix with agent on a cell that raised, as in JupyterLab
            page.locator(".jp-NotebookPanel .jp-Cell").nth(2).locator(".jp-InputPrompt").click()
            page.keyboard.press("Shift+Enter")
            fix = page.locator(".jp-NotebookPanel [data-testid=ja-fix]")
            fix.wait_for(timeout=60_000)
            cell_id = page.evaluate(
                "() => window.jupyterapp.shell.currentWidget.content.model.cells.get(2).id"
            )
            edit = {"action": "replace", "cell_id": cell_id, "source": "ratio = 1 / 2\nratio", "run": True}
            scripted_server.queue(
                Reply(text="Division by zero.", tool_calls=[ToolCall("notebook_edit", json.dumps(edit))]),
                Reply(text="Fixed in Notebook 7."),
            )
            fix.click()
            panel.locator("[data-testid=ja-approve-once]").click(timeout=60_000)
            _panel_says(page, "Fixed in Notebook 7.")
            page.wait_for_function(
                "() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell')[2].innerText.includes('0.5')",
                timeout=30_000,
            )
            # a staged edit is reviewed in Notebook 7 as in JupyterLab: Accept applies it
            scripted_server.queue(
                Reply(
                    tool_calls=[
                        ToolCall("notebook_edit", json.dumps({"action": "insert", "source": "half = 0.5"}))
                    ]
                ),
                Reply(text="Staged in Notebook 7."),
            )
            box.fill("add a cell")
            box.press("Enter")
            _panel_says(page, "Staged in Notebook 7.")
            staged = page.locator(".jp-NotebookPanel [data-testid=ja-staged]")
            staged.locator("[data-testid=ja-staged-accept]").click(timeout=60_000)
            page.wait_for_function(
                "() => [...document.querySelectorAll('.jp-NotebookPanel .jp-Cell')]"
                ".some(c => c.innerText.includes('half = 0.5') && !c.querySelector('.ja-staged'))",
                timeout=30_000,
            )
            # reloaded, the panel comes back by itself
            page.reload()
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
            panel.wait_for(state="visible", timeout=30_000)
        finally:
            page.screenshot(path=str(ARTIFACTS / "saved-notebook7.png"), full_page=True)
            page.close()


def _panel_says(page: Any, text: str) -> None:
    page.wait_for_function(
        "(text) => (document.querySelector('#jupyter-agent-panel')?.innerText || '').includes(text)",
        arg=text,
        timeout=60_000,
    )
