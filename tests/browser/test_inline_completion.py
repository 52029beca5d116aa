"""Inline completion in real Chromium against `jupyter lab` (and one check in Notebook 7) with
the scripted model: a ghost suggestion whose request carried the DataFrame's columns, Tab
accepts it, typing on aborts the request (the server sees the connection closed), none in
markdown cells or when switched off, and the session's cost line counts completions.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_harness import ARTIFACTS, Lab, open_notebook, running_lab
from scripted_server import Reply, ScriptedServer

pytestmark = pytest.mark.browser
PANEL = "#jupyter-agent-panel"
SETUP = (
    "%load_ext jupyter_agent\n"
    "import pandas as pd\n"
    'sales = pd.DataFrame({"month": ["jan", "feb"], "region": ["north", "south"], "revenue": [1.5, 2.5]})'
)
SUGGESTION = 'month").revenue.sum()'
TWO_LINES = 'month")\n    .revenue.sum()'
GHOST = ".jp-NotebookPanel .jp-GhostText"


def write(root: Path, name: str) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(SETUP),
        nbformat.v4.new_code_cell(""),
        nbformat.v4.new_markdown_cell("Notes"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / name)


def configure(root: Path) -> None:
    # a priced model (the scripted server answers for any name), so the cost line has a figure
    (root / "jupyter-agent.json").write_text(json.dumps({"completion": {"model": "openai/gpt-4o"}}))


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, server: ScriptedServer, chromium: Any) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("inline")
    configure(root)
    with running_lab(root, server) as running:
        yield running


def start(page: Any, lab: Lab, name: str, panel: bool = True) -> Any:
    """Open the notebook, run its first cell, open the Agent panel (whose greeting builds the
    agent in the kernel, as a first suggestion would) and put the cursor in the empty cell."""
    write(lab.root, name)
    open_notebook(page, lab.url(name))
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Shift+Enter")  # runs the setup cell and moves to the empty one
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel .jp-InputPrompt')]"
        ".some(p => p.textContent.includes('[1]'))",
        timeout=90_000,
    )
    if panel:
        page.click('.jp-SideBar .lm-TabBar-tab[data-id="jupyter-agent-panel"]')
        page.wait_for_selector(f'{PANEL}[data-state="open"]', timeout=90_000)
    editor = page.locator(".jp-NotebookPanel .jp-Cell").nth(1).locator(".cm-content")
    editor.click()
    return editor


def warm(page: Any, editor: Any, server: ScriptedServer) -> None:
    """The first suggestions wait for the agent and litellm to load in the kernel (seconds,
    more on a loaded machine, past JupyterLab's wait for a provider): ask until one reaches
    the model."""
    asked = len(server.requests)
    deadline = time.monotonic() + 180
    while len(server.requests) == asked:
        if time.monotonic() > deadline:
            pytest.fail("no suggestion reached the model in 3 minutes")
        editor.type("s")
        page.wait_for_timeout(3_000)
        page.keyboard.press("Backspace")
    page.wait_for_timeout(1_000)


def cell_is(page: Any, source: str, index: int = 1) -> None:
    page.wait_for_function(
        "([i, want]) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel"
        ".getSource() === want",
        arg=[index, source],
        timeout=30_000,
    )


def ghost(page: Any, needle: str, timeout: int = 60_000, start: bool = False) -> None:
    """Ghost text with ``needle`` in it (``start``: at its start) shows in the notebook."""
    test = "startsWith" if start else "includes"
    page.wait_for_function(
        f"([sel, needle]) => [...document.querySelectorAll(sel)].some(g => g.textContent.{test}(needle))",
        arg=[GHOST, needle],
        timeout=timeout,
    )


def test_suggestions_from_the_kernel_in_jupyterlab(chromium: Any, lab: Lab, server: ScriptedServer) -> None:
    page = chromium.new_page(viewport={"width": 1500, "height": 1000})
    try:
        server.default = Reply(text=TWO_LINES, chunk_size=4)  # any pause in typing gets this
        editor = start(page, lab, "inline.ipynb")
        warm(page, editor, server)
        editor.type('sales.groupby("')
        ghost(page, "sum()")  # streamed to its end (Tab takes what has streamed so far)
        sent = json.dumps(server.requests[-1]["body"]["messages"])
        assert all(f"{column} (" in sent for column in ("month", "region", "revenue")), sent
        assert 'sales.groupby(\\"<CURSOR>' in sent, sent
        page.screenshot(path=str(ARTIFACTS / "inline-ghost.png"))
        asked = len(server.requests)
        page.keyboard.press("Control+ArrowRight")  # its next word
        cell_is(page, 'sales.groupby("month')
        ghost(page, '")', start=True)
        page.keyboard.press("Control+ArrowDown")  # the rest of its line
        cell_is(page, 'sales.groupby("month")')
        assert len(server.requests) == asked  # taking part of a suggestion asks for no new one
        page.keyboard.press("Tab")  # the rest
        cell_is(page, 'sales.groupby("month")\n    .revenue.sum()')

        # typing on aborts the request in flight: the server sees its connection closed
        page.keyboard.press("Enter")
        server.default = Reply(text="sales.region.unique()", chunk_size=3, stall_after_chunks=3)
        asked = len(server.requests)
        editor.type("x = sal")
        ghost(page, "sal")  # the stalled answer's first chunks are shown, streaming
        stalled = server.requests[-1]
        assert len(server.requests) > asked and "client_closed" not in stalled
        server.default = Reply(text=".region")
        before = len(server.requests)
        editor.type("es")
        _wait(lambda: "client_closed" in stalled, "the stalled request was never closed")
        _wait(lambda: len(server.requests) > before, "the pause after typing on asked nothing")
        ghost(page, ".region")  # the new request's answer: nothing of it is still on its way

        # no request while the kernel runs a cell (sent from elsewhere: the editor keeps its focus)
        page.evaluate(
            "() => { window._busy = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel"
            ".requestExecute({code: 'import time; time.sleep(4)'}).done; }"
        )
        page.wait_for_function(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'busy'"
        )
        _quiet(page, server, lambda: (editor.type(" + sales.mon"), page.evaluate("() => window._busy")))

        # no request from a markdown cell
        page.keyboard.press("Escape")
        page.locator(".jp-NotebookPanel .jp-Cell").nth(2).click()
        page.keyboard.press("Enter")
        _quiet(page, server, lambda: page.keyboard.type("Sales by mon"))

        # the session's cost line counts completions (not the context gauge's tokens)
        page.wait_for_function(
            "(sel) => /0 tokens.*completions \\$0\\.\\d{4} \\(\\d+\\)/.test("
            "document.querySelector(sel)?.textContent || '')",
            arg=f"{PANEL} [data-testid=ja-gauge]",
            timeout=30_000,
        )

        # switched off in the panel: no request
        toggle = page.locator(f"{PANEL} [data-testid=ja-complete-toggle]")
        assert toggle.is_checked()
        toggle.click()
        page.wait_for_function(
            "(sel) => document.querySelector(sel)?.innerText.includes('Inline completion is off')",
            arg=f"{PANEL} [data-testid=ja-panel-view]",
            timeout=30_000,
        )
        editor.click()
        page.keyboard.press("End")
        _quiet(page, server, lambda: page.keyboard.type(" + sales.rev"))
        assert not page.locator(GHOST).count()
    finally:
        page.screenshot(path=str(ARTIFACTS / "inline-completion.png"))
        page.close()


def _wait(check: Any, problem: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(problem)
        time.sleep(0.05)


def _quiet(page: Any, server: ScriptedServer, typing: Any) -> None:
    """Typing in ``typing`` asks the model nothing (waits past the debounce to be sure)."""
    asked = len(server.requests)
    typing()
    page.wait_for_timeout(1_500)
    assert len(server.requests) == asked, server.requests[asked:]


@pytest.fixture(scope="module")
def notebook7(
    tmp_path_factory: pytest.TempPathFactory, server: ScriptedServer, chromium: Any
) -> Iterator[Lab]:
    root = tmp_path_factory.mktemp("inline-nb7")
    configure(root)
    with running_lab(root, server, app="notebook") as running:
        yield running


def test_a_suggestion_in_notebook_7(chromium: Any, notebook7: Lab, server: ScriptedServer) -> None:
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        server.default = Reply(text=SUGGESTION, chunk_size=4)
        editor = start(page, notebook7, "nb7.ipynb", panel=False)
        warm(page, editor, server)
        editor.type('sales.groupby("')
        ghost(page, SUGGESTION)
        assert "revenue (" in json.dumps(server.requests[-1]["body"]["messages"])
        page.keyboard.press("Tab")
        cell_is(page, 'sales.groupby("month").revenue.sum()')
    finally:
        page.screenshot(path=str(ARTIFACTS / "inline-notebook7.png"))
        page.close()
