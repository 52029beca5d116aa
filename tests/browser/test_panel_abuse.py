"""The side panel used roughly, in real Chromium: a reload mid-stream, two panels on one
session, very long single-line outputs, right-to-left text and emoji, a huge table.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lab_harness import ARTIFACTS, Lab, write_notebook
from scripted_server import Reply, ScriptedServer, ToolCall
from test_side_panel import PANEL, ask, lab, open_panel, page, panel_text, server, wait_idle, wait_text

pytestmark = pytest.mark.browser
__all__ = ["lab", "page", "server"]  # module fixtures shared with test_side_panel.py


def overflow_x(page: Any) -> int:
    """How far the panel's stream is wider than the panel (0: nothing sticks out)."""
    return int(
        page.evaluate(
            "(sel) => { const e = document.querySelector(sel); return e.scrollWidth - e.clientWidth; }",
            f"{PANEL} .ja-panel-stream",
        )
    )


def test_a_reload_mid_stream_picks_the_stream_up_again(page: Any, lab: Lab, server: ScriptedServer) -> None:
    text = "".join(f"Line {i}: streaming on.\n\n" for i in range(400))
    server.queue(Reply(text=text, chunk_size=20, delay_per_chunk=0.03))
    panel = open_panel(page, lab, "reload-stream.ipynb")
    ask(panel, "write a lot")
    wait_text(page, "Line 40:")
    page.reload()
    panel = open_panel(page, lab, "reload-stream.ipynb")
    wait_text(page, "Line 399:", timeout=120_000)
    wait_idle(page)
    shown = panel_text(panel)
    assert shown.count("Line 10:") == 1 and shown.count("Line 399:") == 1
    assert shown.count("write a lot") == 1


def test_two_panels_on_one_session_share_the_stream_and_stop(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    server.queue(Reply(text="word " * 4000, chunk_size=2, delay_per_chunk=0.01))
    first = open_panel(page, lab, "two-panels.ipynb")
    other_page = page.context.browser.new_page(viewport={"width": 1500, "height": 1000})
    try:
        second = open_panel(other_page, lab, "two-panels.ipynb")
        ask(first, "write a lot")
        wait_text(other_page, "word word")  # the second panel follows the first one's run
        assert "write a lot" in panel_text(second)
        second.locator("[data-testid=ja-stop]").click()
        wait_idle(other_page)
        wait_idle(page)
        assert first.locator("[data-testid=ja-stop]").is_hidden()
        server.queue(Reply(text="Both see this."))
        ask(second, "again")
        wait_text(page, "Both see this.")
        wait_idle(page)
    finally:
        other_page.screenshot(path=str(ARTIFACTS / "panel-two-panels.png"))
        other_page.close()


def test_very_long_lines_scroll_inside_their_block(page: Any, lab: Lab, server: ScriptedServer) -> None:
    code = "print('ab' * 6000)"
    server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]),
        Reply(text="x" * 5000 + "\n\n`" + "y" * 3000 + "`\n\n```\n" + "z" * 4000 + "\n```\n"),
    )
    panel = open_panel(page, lab, "long-lines.ipynb")
    ask(panel, "print a long line")
    wait_text(page, "zzzz")
    wait_idle(page)
    card = panel.locator('[data-testid=ja-tool][data-tool="python"]')
    card.locator(".ja-output summary").click()
    assert overflow_x(page) <= 0, "the panel grew sideways"
    output = card.locator(".ja-output pre")
    assert output.evaluate("e => e.scrollWidth > e.clientWidth && getComputedStyle(e).overflowX") == "auto"
    page.screenshot(path=str(ARTIFACTS / "panel-long-lines.png"))


def test_right_to_left_text_and_emoji(page: Any, lab: Lab, server: ScriptedServer) -> None:
    hebrew = "שלום עולם, זו תשובה בעברית."
    arabic = "مرحبا بالعالم، هذه إجابة."
    emoji = "Done 👋🏽 👨‍👩‍👧 🇩🇪 ✅"
    server.queue(Reply(text=f"{hebrew}\n\n{arabic}\n\n{emoji}\n\n- פריט אחד\n- second item", chunk_size=1))
    panel = open_panel(page, lab, "rtl.ipynb")
    ask(panel, "שלום 👋")
    wait_text(page, "second item")
    wait_idle(page)
    text = panel.locator(".ja-text").last
    shown = text.inner_text()
    for piece in (hebrew, arabic, emoji):
        assert piece in shown, piece
    paragraphs = text.locator("p")
    directions = paragraphs.evaluate_all("ps => ps.map(p => getComputedStyle(p).direction)")
    assert directions == ["rtl", "rtl", "ltr"], directions
    assert text.locator("li").first.evaluate("e => getComputedStyle(e).direction") == "rtl"
    prompt = panel.locator(".ja-prompt").last
    assert prompt.locator("p").evaluate("e => getComputedStyle(e).direction") == "rtl"
    page.screenshot(path=str(ARTIFACTS / "panel-rtl-emoji.png"))


def test_a_huge_table_scrolls_inside_the_answer(page: Any, lab: Lab, server: ScriptedServer) -> None:
    columns = [f"column_{c}" for c in range(25)]
    rows = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    rows += ["| " + " | ".join(f"r{r}c{c}" for c in range(len(columns))) + " |" for r in range(300)]
    server.queue(Reply(text="\n".join(rows) + "\n\nEnd of table.", chunk_size=400, delay_per_chunk=0.005))
    panel = open_panel(page, lab, "table.ipynb")
    ask(panel, "a big table")
    wait_text(page, "End of table.", timeout=90_000)
    wait_idle(page)
    table = panel.locator(".ja-text table").last
    assert table.locator("tbody tr").count() == 300
    assert overflow_x(page) <= 0, "the panel grew sideways"
    assert table.evaluate("e => e.scrollWidth > e.clientWidth")  # it scrolls inside the answer
    page.screenshot(path=str(ARTIFACTS / "panel-huge-table.png"))


def test_an_approval_survives_switching_notebooks(page: Any, lab: Lab, server: ScriptedServer) -> None:
    folder = lab.root / "guarded-switch"
    folder.mkdir(exist_ok=True)
    (folder / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    write_notebook(folder / "one.ipynb", "x = 1")
    write_notebook(folder / "two.ipynb", "y = 2")
    server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo switched-back"}))]),
        Reply(text="Ran it after the switch."),
    )
    panel = open_panel(page, lab, "guarded-switch/one.ipynb")
    ask(panel, "run the command")
    panel.locator("[data-testid=ja-permission]").wait_for(timeout=60_000)
    # open the second notebook in another tab (no reload): the panel follows it
    page.locator(".lm-MenuBar-itemLabel", has_text="File").click()
    page.locator(".lm-Menu-itemLabel", has_text="Open from Path…").click()
    page.locator(".jp-Dialog input").fill("guarded-switch/two.ipynb")
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="two.ipynb").wait_for(timeout=30_000)
    page.wait_for_selector(f'{PANEL}[data-state="missing"], {PANEL}[data-state="open"]', timeout=60_000)
    page.wait_for_function(
        "(sel) => !(document.querySelector(sel)?.innerText || '').includes('run the command')",
        arg=f"{PANEL} [data-testid=ja-panel-view]",
    )
    page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="one.ipynb").click()
    box = panel.locator("[data-testid=ja-permission]")
    box.wait_for(timeout=30_000)
    box.locator("[data-testid=ja-approve-once]").click()
    wait_text(page, "Ran it after the switch.")
    wait_idle(page)
