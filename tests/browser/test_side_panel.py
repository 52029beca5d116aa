"""The JupyterLab side panel in real Chromium, against a `jupyter lab` started here and the
scripted model server: prompt, streaming, tool cards, live cell inserts, Stop, Compact,
approvals, @ completion, loading the extension, and history after the kernel is gone.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from lab_harness import ARTIFACTS, TOKEN, Lab, open_notebook, running_lab, write_notebook
from scripted_server import Reply, ScriptedServer, ToolCall, Usage

pytestmark = pytest.mark.browser
PANEL = "#jupyter-agent-panel"


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, server: ScriptedServer, chromium: Any) -> Iterator[Lab]:
    with running_lab(tmp_path_factory.mktemp("panel"), server) as running:
        yield running


@pytest.fixture
def page(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    page = chromium.new_page(viewport={"width": 1500, "height": 1000})
    yield page
    if not page.is_closed():
        page.screenshot(path=str(ARTIFACTS / f"panel-{request.node.name}.png"))
        page.close()


def open_panel(page: Any, lab: Lab, notebook: str) -> Any:
    """Open the notebook, then the panel; load the extension from the panel's offer."""
    if not (lab.root / notebook).exists():
        write_notebook(lab.root / notebook, "x = 1")
    open_notebook(page, lab.url(notebook))
    panel = page.locator(PANEL)
    # after a reload the panel comes back with the layout: a click on its tab would close it
    page.evaluate("() => window.jupyterapp.restored.then(() => true)")
    if not panel.is_visible():
        page.click('.jp-SideBar .lm-TabBar-tab[data-id="jupyter-agent-panel"]')
    panel.wait_for(state="visible")
    page.wait_for_selector(f'{PANEL}[data-state="missing"], {PANEL}[data-state="open"]', timeout=60_000)
    if panel.get_attribute("data-state") == "missing":
        assert "not loaded" in panel.locator("[data-testid=ja-panel-banner]").inner_text()
        panel.locator("[data-testid=ja-load-extension]").click()
    page.wait_for_selector(f'{PANEL}[data-state="open"]', timeout=60_000)
    return panel


def ask(panel: Any, text: str) -> None:
    box = panel.locator("[data-testid=ja-prompt]")
    box.fill(text)
    box.press("Enter")


def panel_text(panel: Any) -> str:
    return str(panel.locator("[data-testid=ja-panel-view]").inner_text())


def wait_text(page: Any, needle: str, timeout: int = 60_000) -> None:
    page.wait_for_function(
        "([sel, needle]) => (document.querySelector(sel)?.innerText || '').includes(needle)",
        arg=[f"{PANEL} [data-testid=ja-panel-view]", needle],
        timeout=timeout,
    )


def wait_idle(page: Any) -> None:
    page.wait_for_selector(f'{PANEL} .ja-root[data-state="idle"]', timeout=60_000)


def gauge_tokens(panel: Any) -> int:
    text = panel.locator("[data-testid=ja-gauge]").inner_text()
    return int(re.search(r"([\d,]+) tokens", text).group(1).replace(",", ""))  # type: ignore[union-attr]


def test_prompt_streams_text_and_a_tool_card(page: Any, lab: Lab, server: ScriptedServer) -> None:
    server.queue(
        Reply(tool_calls=[ToolCall("list", json.dumps({}))]),
        Reply(text="The folder holds **notebooks** and `lab.log`.", chunk_size=3, delay_per_chunk=0.01),
    )
    panel = open_panel(page, lab, "basic.ipynb")
    # @ completes files (and variables, cells) from the kernel
    box = panel.locator("[data-testid=ja-prompt]")
    box.click()
    box.type("list @file:bas")
    panel.locator("[data-testid=ja-completions] li").first.wait_for()
    assert panel.locator("[data-testid=ja-completions] li").first.get_attribute("data-label") == (
        "file:basic.ipynb"
    )
    box.press("Tab")
    assert box.input_value() == "list @file:basic.ipynb "
    box.fill("what is in this folder?")
    box.press("Enter")
    wait_text(page, "notebooks and lab.log")
    wait_idle(page)
    tool = panel.locator("[data-testid=ja-tool]").first
    assert tool.get_attribute("data-tool") == "list"
    assert tool.get_attribute("data-status") == "completed"
    # the cell widget's stylesheet is bundled into the panel too
    assert tool.locator(".ja-tool-head").evaluate("e => getComputedStyle(e).display") == "flex"
    assert panel.locator(".ja-text strong").first.inner_text() == "notebooks"
    assert "what is in this folder?" in panel_text(panel)
    assert gauge_tokens(panel) > 0
    assert box.input_value() == ""


def test_the_agent_inserts_and_runs_a_cell_in_the_open_notebook(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    args = {"action": "insert", "source": "print(6 * 7)", "run": True}
    server.queue(Reply(tool_calls=[ToolCall("notebook_edit", json.dumps(args))]), Reply(text="Added it."))
    panel = open_panel(page, lab, "edit.ipynb")
    ask(panel, "add a cell that prints 6*7 and run it")
    wait_text(page, "Added it.")
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    assert cells.count() == 2
    staged = cells.nth(1).locator("[data-testid=ja-staged]")  # the edit waits for the user's review
    assert "print(6 * 7)" in staged.inner_text()
    staged.locator("[data-testid=ja-staged-accept]").click()
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell')[1].innerText.includes('print(6 * 7)')"
    )
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-NotebookPanel .jp-OutputArea-output')]"
        ".some(e => e.innerText.includes('42'))",
        timeout=30_000,
    )
    card = panel.locator('[data-testid=ja-tool][data-tool="notebook_edit"]')
    assert card.get_attribute("data-status") == "completed"


def test_stop_cancels_a_streaming_answer(page: Any, lab: Lab, server: ScriptedServer) -> None:
    long = "word " * 3000
    server.queue(Reply(text=long, chunk_size=2, delay_per_chunk=0.01))
    panel = open_panel(page, lab, "stop.ipynb")
    ask(panel, "write a lot")
    wait_text(page, "word word")
    panel.locator("[data-testid=ja-stop]").click()
    wait_text(page, "Stopped", timeout=20_000)
    wait_idle(page)
    shown = panel_text(panel).count("word")
    assert 0 < shown < 3000
    assert panel.locator("[data-testid=ja-stop]").is_hidden()


def test_compact_shows_the_marker_and_the_gauge_drops(page: Any, lab: Lab, server: ScriptedServer) -> None:
    server.queue(
        Reply(text="The analysis is done.", usage=Usage(prompt_tokens=20_000, completion_tokens=100))
    )
    panel = open_panel(page, lab, "compact.ipynb")
    ask(panel, "analyse")
    wait_text(page, "The analysis is done.")
    wait_idle(page)
    before = gauge_tokens(panel)
    assert before >= 20_000
    server.queue(
        Reply(text="Summary: the analysis is done.", usage=Usage(prompt_tokens=300, completion_tokens=40))
    )
    panel.locator(".ja-compact").click()
    page.wait_for_selector(f"{PANEL} [data-testid=ja-compaction].ja-done", timeout=60_000)
    page.wait_for_function(
        "([sel, before]) => {"
        " const m = (document.querySelector(sel)?.innerText || '').match(/([\\d,]+) tokens/);"
        " return m && Number(m[1].replace(/,/g, '')) < before; }",
        arg=[f"{PANEL} [data-testid=ja-gauge]", before],
        timeout=30_000,
    )
    assert gauge_tokens(panel) < 1_000


def test_an_approval_click_unblocks_the_tool(page: Any, lab: Lab, server: ScriptedServer) -> None:
    """A configuration file not trusted yet asks Trust / Ignore first (issue 37.1); trusted,
    its rule asks for the command."""
    folder = lab.root / "guarded"
    folder.mkdir(exist_ok=True)
    (folder / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    # the kernel's user data folder: one that trusts nothing yet (the suite's trusts its folders)
    write_notebook(folder / "approve.ipynb", f"%env JUPYTER_AGENT_DATA_DIR={lab.root / '.fresh-data'}")
    server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo approved-run"}))]),
        Reply(text="It ran."),
    )
    panel = open_panel(page, lab, "guarded/approve.ipynb")
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(".jp-NotebookPanel .jp-OutputArea-output", timeout=60_000)
    ask(panel, "run the command")
    trusting = panel.locator("[data-testid=ja-permission][data-permission=trust_config]")
    trusting.wait_for(timeout=60_000)
    assert "it would ask before bash" in trusting.inner_text()
    assert trusting.locator("button").all_inner_texts() == ["Trust", "Ignore"]
    trusting.locator("[data-testid=ja-approve-once]").click()
    prompt = panel.locator("[data-testid=ja-permission][data-permission=bash]")
    prompt.wait_for(timeout=60_000)
    assert "bash" in prompt.inner_text()
    prompt.locator("[data-testid=ja-approve-once]").click()
    wait_text(page, "It ran.")
    card = panel.locator('[data-testid=ja-tool][data-tool="bash"]')
    assert card.get_attribute("data-status") == "completed"
    assert "approved-run" in card.inner_text()


def test_reopening_restores_the_history_from_the_store(page: Any, lab: Lab, server: ScriptedServer) -> None:
    server.queue(Reply(text="Remember the number 4711."))
    panel = open_panel(page, lab, "reopen.ipynb")
    ask(panel, "pick a number")
    wait_text(page, "Remember the number 4711.")
    wait_idle(page)
    page.close()
    # the kernel goes away entirely: the history must come back from SQLite
    with urllib.request.urlopen(f"{lab.base}/api/sessions?token={TOKEN}") as r:
        for s in json.load(r):
            if s["path"].endswith("reopen.ipynb"):
                req = urllib.request.Request(
                    f"{lab.base}/api/sessions/{s['id']}?token={TOKEN}", method="DELETE"
                )
                urllib.request.urlopen(req).close()
    again = page.context.browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        panel = open_panel(again, lab, "reopen.ipynb")
        wait_text(again, "Remember the number 4711.")
        assert "pick a number" in panel_text(panel)
    finally:
        again.screenshot(path=str(ARTIFACTS / "panel-reopened.png"))
        again.close()


def test_a_cell_that_loads_the_extension_connects_the_panel(page: Any, lab: Lab) -> None:
    write_notebook(lab.root / "cell-load.ipynb", "%load_ext jupyter_agent")
    open_notebook(page, lab.url("cell-load.ipynb"))
    page.click('.jp-SideBar .lm-TabBar-tab[data-id="jupyter-agent-panel"]')
    page.wait_for_selector(f'{PANEL}[data-state="missing"]', timeout=60_000)
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Shift+Enter")
    page.wait_for_selector(f'{PANEL}[data-state="open"]', timeout=60_000)


def test_the_panel_is_in_the_wheel_data(lab: Lab) -> None:
    """`jupyter labextension list` sees the prebuilt panel (what `pip install` ships)."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "jupyter", "labextension", "list"], capture_output=True, text=True, check=True
    )
    # the extension's own line ("jupyter-agent v0.1.0 enabled OK"), not a path header that
    # happens to contain the clone's folder name
    line = next(
        line for line in (out.stdout + out.stderr).splitlines() if re.match(r"\s+jupyter-agent\s+v\d", line)
    )
    assert "enabled" in line and "OK" in line, line


def test_sessions_new_switch_and_rename(page: Any, lab: Lab, server: ScriptedServer) -> None:
    server.queue(Reply(text="First session answer."))
    panel = open_panel(page, lab, "sessions.ipynb")
    ask(panel, "hello")
    wait_text(page, "First session answer.")
    wait_idle(page)
    select = panel.locator("[data-testid=ja-session-select]")
    first = select.input_value()
    panel.locator("[data-testid=ja-session-new]").click()
    page.wait_for_function(
        "([sel, first]) => document.querySelector(sel).value !== first && "
        "document.querySelector(sel).options.length === 2",
        arg=[f"{PANEL} [data-testid=ja-session-select]", first],
        timeout=30_000,
    )
    assert "First session answer." not in panel_text(panel)
    panel.locator("[data-testid=ja-session-rename]").click()
    dialog = page.locator(".jp-Dialog input")
    dialog.fill("Second thoughts")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.wait_for_function(
        "(sel) => [...document.querySelector(sel).options].some(o => o.dataset.title === 'Second thoughts')",
        arg=f"{PANEL} [data-testid=ja-session-select]",
        timeout=30_000,
    )
    select.select_option(first)
    wait_text(page, "First session answer.")


def test_a_kernel_restart_is_shown_and_the_panel_offers_to_load_again(page: Any, lab: Lab) -> None:
    panel = open_panel(page, lab, "restart.ipynb")
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Escape")
    page.keyboard.press("0")
    page.keyboard.press("0")  # restart the kernel (command mode 0,0) and confirm
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.wait_for_selector(f'{PANEL}[data-state="missing"]', timeout=60_000)
    assert panel.locator("[data-testid=ja-prompt]").is_disabled()
    panel.locator("[data-testid=ja-load-extension]").click()
    page.wait_for_selector(f'{PANEL}[data-state="open"]', timeout=60_000)


def test_hidden_state_add_as_cell_and_verify(page: Any, lab: Lab, server: ScriptedServer) -> None:
    """The agent's python rebinds `sales`: the cell's transcript and the panel mark it, "Add as
    cell" on the transcript puts the agent's code below the run, and /verify shows its table."""
    code = "sales = [x for x in sales if x >= 0]"
    server.queue(Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]), Reply(text="Cleaned."))
    write_notebook(lab.root / "hidden.ipynb", "sales = [120, 80, -5, 95]", "%agent drop the negative sales")
    panel = open_panel(page, lab, "hidden.ipynb")
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Escape")
    for _ in range(2):
        page.keyboard.press("Shift+Enter")
    add = page.locator(".jp-NotebookPanel [data-testid=ja-add-cell]")
    add.wait_for(timeout=90_000)
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    assert "sales was changed by the agent's code, not by a cell" in cells.nth(1).inner_text()
    assert panel.locator("[data-testid=ja-hidden]").count() == 1  # the panel marks the run too
    add.click()
    page.wait_for_function(
        "(code) => window.jupyterapp.shell.currentWidget.content.model.cells.get(2)"
        "?.sharedModel.getSource() === code",
        arg=code,
        timeout=30_000,
    )
    done = page.locator(".jp-NotebookPanel [data-testid=ja-hidden-added]")
    done.wait_for(timeout=30_000)
    assert add.count() == 0 and panel.locator("[data-testid=ja-hidden-added]").count() == 1
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    ask(panel, "/verify")
    table = panel.locator('[data-testid=ja-verify][data-state="done"]')
    table.wait_for(timeout=120_000)
    assert "Reproducible" in table.inner_text() and "skipped" in table.inner_text()
    assert done.is_visible()  # the end of a run redraws the Fix buttons: this mark stays
