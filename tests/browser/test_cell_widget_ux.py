"""The `%agent` cell widget in real Chromium (light and dark): the answer the cell keeps is
real Markdown, its code is highlighted and carries Copy / Insert below / Replace cell (Replace
fills the cell the user was in, never the `%agent` cell), the gauge moves while text streams,
and Escape on a running agent cell stops it.
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


CELL_ANSWER = (
    "Look at **`df`** first.\n\n- outer\n  - inner\n    - deepest\n\nEuler says $e^{i\\pi} + 1 = 0$.\n\n"
    "Run this:\n\n```python\nimport math\nprint(math.tau)\n```\n"
)


def sources(page: Any) -> list[str]:
    editors = page.locator(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    return [s.strip() for s in editors.all_inner_texts()]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_code_in_a_cell_answer_is_highlighted_with_actions(
    page: Any, lab: Lab, server: ScriptedServer, theme: str
) -> None:
    server.queue(Reply(text=CELL_ANSWER, chunk_size=5))
    run_agent_cell(page, lab, f"cell-code-{theme}.ipynb", theme)
    # the live widget streams; at the end the cell keeps a static transcript: both have the actions
    page.wait_for_selector(f"{CELL} .jp-agent-transcript", timeout=90_000)
    text = page.locator(f"{CELL} .jp-agent-transcript-text").last
    block = text.locator(".ja-codeblock").first
    block.wait_for(timeout=10_000)
    # the same Markdown as the panel: bold code, nested lists, LaTeX typeset
    assert text.locator("strong > code").inner_text() == "df"
    assert text.locator("ul ul ul li").inner_text() == "deepest"
    typeset = "(sel) => !document.querySelector(sel).innerText.includes('$e^')"
    page.wait_for_function(typeset, arg=f"{CELL} .jp-agent-transcript-text")
    assert block.locator(".hljs-keyword").first.inner_text() == "import"
    for action in ("copy", "insert", "replace"):
        assert block.locator(f"[data-testid=ja-code-{action}]").is_visible()
    # the bar sits above the code, never over it
    bar = block.locator(".ja-code-actions").bounding_box()
    code = block.locator("pre").bounding_box()
    assert bar and code and bar["y"] + bar["height"] <= code["y"] + 1, (bar, code)
    page.screenshot(path=str(ARTIFACTS / f"cell-widget-code-actions-{theme}.png"))
    # Shift+Enter left the new empty third cell active: Replace fills it, not the %agent cell
    assert sources(page) == ["%load_ext jupyter_agent", "%agent explain", ""], sources(page)
    block.locator("[data-testid=ja-code-replace]").click()
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell .jp-InputArea-editor')[2]"
        "?.innerText.includes('print(math.tau)')"
    )
    assert sources(page)[1] == "%agent explain"
    # Insert below puts a new cell right under the %agent cell
    block.locator("[data-testid=ja-code-insert]").click()
    page.wait_for_function("() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell').length === 4")
    after = sources(page)
    assert after[1] == "%agent explain", after
    assert "print(math.tau)" in after[2] and "print(math.tau)" in after[3], after
    block.locator("[data-testid=ja-code-copy]").click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.textContent === 'Copied'",
        arg=f"{CELL} .jp-agent-transcript [data-testid=ja-code-copy]",
        timeout=5_000,
    )


@pytest.mark.parametrize("theme", ["dark"])  # the light theme: the test above
def test_the_cell_gauge_moves_while_text_streams(
    page: Any, lab: Lab, server: ScriptedServer, theme: str
) -> None:
    """The gauge moves while the answer streams; Escape on the agent cell stops it."""
    text = "".join(f"Sentence {i} of a long answer that takes a while.\n\n" for i in range(300))
    server.queue(Reply(text=text, chunk_size=60, delay_per_chunk=0.03))
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
    # Escape stopped an answer only from inside the side panel: on the agent cell itself
    # (selected, command mode) it now stops the cell's run as the cell's Stop button does
    page.locator(".jp-NotebookPanel .jp-Cell").nth(1).locator(".jp-InputPrompt").click()
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.mode") == "command"
    assert busy.count() == 1  # still streaming
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{CELL} .jp-agent-transcript[data-status=stopped]", timeout=20_000)


def tokens(text: str) -> int:
    match = re.search(r"([\d,]+) tokens", text)
    assert match, text
    return int(match.group(1).replace(",", ""))
