"""The `%agent` cell widget in real Chromium (light and dark): code in answers is highlighted
and carries Copy / Insert below / Replace cell, and the gauge moves while text streams.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from lab_harness import ARTIFACTS, Lab, open_notebook, write_notebook
from scripted_server import Reply, ScriptedServer
from test_panel_ux import set_theme
from test_side_panel import lab, page, server

pytestmark = pytest.mark.browser
__all__ = ["lab", "page", "server"]  # module fixtures shared with test_side_panel.py
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}
CELL = ".jp-NotebookPanel .jp-OutputArea"


def run_agent_cell(page: Any, lab: Lab, name: str, theme: str) -> None:
    write_notebook(lab.root / name, "%load_ext jupyter_agent", "%agent explain")
    open_notebook(page, lab.url(name))
    set_theme(page, THEMES[theme])
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Escape")
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_code_in_a_cell_answer_is_highlighted_with_actions(
    page: Any, lab: Lab, server: ScriptedServer, theme: str
) -> None:
    server.queue(Reply(text="Run this:\n\n```python\nimport math\nprint(math.tau)\n```\n", chunk_size=5))
    run_agent_cell(page, lab, f"cell-code-{theme}.ipynb", theme)
    # the live view streams it (tests/browser/test_panel_ux.py: the same renderer); when the run
    # ends the cell keeps the transcript, which the extension highlights and gives the same actions
    block = page.locator(f"{CELL} .jp-agent-transcript .ja-codeblock:has(code.language-python)").first
    block.wait_for(timeout=90_000)
    assert page.locator(f"{CELL} .ja-root").count() == 0  # not shown twice
    assert block.locator(".hljs-keyword").first.inner_text() == "import"
    for action in ("copy", "insert", "replace"):
        assert block.locator(f"[data-testid=ja-code-{action}]").is_visible()
    page.screenshot(path=str(ARTIFACTS / f"cell-widget-code-actions-{theme}.png"))
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    count = cells.count()
    block.locator("[data-testid=ja-code-insert]").click()
    page.wait_for_function(
        "(n) => document.querySelectorAll('.jp-NotebookPanel .jp-Cell').length === n + 1", arg=count
    )
    sources = cells.locator(".jp-InputArea-editor").all_inner_texts()
    assert any("print(math.tau)" in s for s in sources), sources
    block.locator("[data-testid=ja-code-copy]").click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.textContent === 'Copied'",
        arg=f"{CELL} .jp-agent-transcript [data-testid=ja-code-copy]",
        timeout=5_000,
    )


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_cell_gauge_moves_while_text_streams(
    page: Any, lab: Lab, server: ScriptedServer, theme: str
) -> None:
    text = "".join(f"Sentence {i} of a long answer that takes a while.\n\n" for i in range(300))
    server.queue(Reply(text=text, chunk_size=20, delay_per_chunk=0.03))
    run_agent_cell(page, lab, f"cell-gauge-{theme}.ipynb", theme)
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.innerText.includes('Sentence 40 ')",
        arg=f"{CELL} .ja-root",
        timeout=90_000,
    )
    gauge = page.locator(f"{CELL} [data-testid=ja-gauge]")
    busy = page.locator(f'{CELL} .ja-root[data-state="busy"]')
    assert busy.count() == 1 and gauge.is_visible(), "no gauge while the answer streams"
    first = tokens(gauge.inner_text())
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.innerText.includes('Sentence 150 ')",
        arg=f"{CELL} .ja-root",
        timeout=90_000,
    )
    assert busy.count() == 1
    assert tokens(gauge.inner_text()) > first > 0
    page.screenshot(path=str(ARTIFACTS / f"cell-widget-gauge-{theme}.png"))
    page.wait_for_selector(f"{CELL} .jp-agent-transcript", timeout=90_000)  # the run ended


def tokens(text: str) -> int:
    match = re.search(r"([\d,]+) tokens", text)
    assert match, text
    return int(match.group(1).replace(",", ""))
