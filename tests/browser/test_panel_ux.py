"""Issue 20 in the side panel, in real Chromium against `jupyter lab` and the scripted model:
approvals after a reload, Stop back to idle, following the stream, real Markdown, code
actions, tool cards, the Thinking label, Escape, focus and labels. Issue 31: the first width
and 250 px (screenshots: panel-{250,400}-{light,dark}.png), a session with plots reopened on
its newest message, the keyboard (Jump, Tab order, Escape, the focus-prompt shortcut).
"""

from __future__ import annotations

import base64
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from lab_harness import ARTIFACTS, Lab, write_notebook
from scripted_server import Reply, ScriptedServer, ToolCall
from test_side_panel import PANEL, ask, lab, open_panel, page, panel_text, server, wait_idle, wait_text

from jupyter_agent.core.messages import (
    Attachment,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolTimeCompleted,
    UserMessage,
)
from jupyter_agent.storage.sqlite_store import SqliteStore

pytestmark = pytest.mark.browser
__all__ = ["lab", "page", "server"]  # module fixtures shared with test_side_panel.py


def stream_box(page: Any) -> dict[str, float]:
    return dict(
        page.evaluate(
            "(sel) => { const e = document.querySelector(sel);"
            " return {top: e.scrollTop, height: e.scrollHeight, client: e.clientHeight}; }",
            f"{PANEL} .ja-panel-stream",
        )
    )


def visible_in_panel(page: Any, selector: str) -> bool:
    """Is ``selector`` inside the panel's visible rectangle (not scrolled away)?"""
    return bool(
        page.evaluate(
            "([panel, sel]) => { const p = document.querySelector(panel + ' .ja-panel-stream')"
            ".getBoundingClientRect(); const e = document.querySelector(sel);"
            " if (!e) return false; const r = e.getBoundingClientRect();"
            " return r.height > 0 && r.top >= p.top - 1 && r.bottom <= p.bottom + 1; }",
            [PANEL, selector],
        )
    )


def test_a_pending_approval_survives_a_reload_and_stop_returns_to_idle(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    folder = lab.root / "guarded-reload"
    folder.mkdir(exist_ok=True)
    (folder / "jupyter-agent.json").write_text(json.dumps({"permission": {"bash": "ask"}}))
    write_notebook(folder / "reload.ipynb", "x = 1")
    server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "echo after-reload"}))]))
    panel = open_panel(page, lab, "guarded-reload/reload.ipynb")
    ask(panel, "run the command")
    panel.locator("[data-testid=ja-permission]").wait_for(timeout=60_000)
    page.reload()
    panel = open_panel(page, lab, "guarded-reload/reload.ipynb")
    box = panel.locator("[data-testid=ja-permission]")
    box.wait_for(timeout=30_000)  # replayed to the new view
    assert box.locator("[data-testid=ja-approve-once]").is_enabled()
    page.wait_for_selector(f'{PANEL} .ja-root[data-state="busy"]', timeout=10_000)
    page.screenshot(path=str(ARTIFACTS / "panel-approval-after-reload.png"))
    panel.locator("[data-testid=ja-stop]").click()
    page.wait_for_selector(f'{PANEL} .ja-root[data-state="idle"]', timeout=15_000)
    card = panel.locator('[data-testid=ja-tool][data-tool="bash"]')
    assert card.get_attribute("data-status") == "error"
    # focus stays with the user: back in the prompt box, not on <body>
    assert page.evaluate("document.activeElement?.dataset?.testid") == "ja-prompt"


def test_the_panel_follows_the_stream_and_offers_jump_to_latest(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    long = "".join(f"Line {i}: the answer goes on and on.\n\n" for i in range(600))  # ~22,000 chars
    server.queue(Reply(text=long, chunk_size=40, delay_per_chunk=0.02))
    panel = open_panel(page, lab, "follow.ipynb")
    ask(panel, "write a lot")
    wait_text(page, "Line 150:")
    box = stream_box(page)
    assert box["height"] > box["client"] * 2
    assert box["top"] > 0 and box["height"] - box["top"] - box["client"] < 60, box  # following
    # status, gauge and Stop stay visible: the header sticks to the top
    assert visible_in_panel(page, f"{PANEL} [data-testid=ja-stop]")
    assert visible_in_panel(page, f"{PANEL} .ja-status")
    # scrolling up stops following and offers a way back
    page.evaluate(f"document.querySelector('{PANEL} .ja-panel-stream').scrollTop = 0")
    jump = panel.locator("[data-testid=ja-jump-latest]")
    jump.wait_for(state="visible", timeout=5_000)
    wait_text(page, "Line 300:")
    assert stream_box(page)["top"] < 50
    jump.click()
    wait_text(page, "Line 599:")
    wait_idle(page)
    box = stream_box(page)
    assert box["height"] - box["top"] - box["client"] < 60, box
    assert jump.is_hidden()


MARKDOWN_ANSWER = (
    "Look at **`df`** first.\n\n"
    "- outer\n  - inner\n    - deepest\n- second\n\n"
    "Euler says $e^{i\\pi} + 1 = 0$.\n\n"
    "```python\nimport math\nprint(math.pi)\n```\n"
)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_answers_are_real_markdown_with_code_actions(
    page: Any, lab: Lab, server: ScriptedServer, theme: str
) -> None:
    server.queue(Reply(text=MARKDOWN_ANSWER, chunk_size=6, delay_per_chunk=0.005))
    panel = open_panel(page, lab, f"markdown-{theme}.ipynb")
    if theme == "dark":
        set_theme(page, "JupyterLab Dark")
    ask(panel, "explain")
    wait_text(page, "print(math.pi)")
    wait_idle(page)
    text = panel.locator(".ja-text").last
    assert text.locator("strong > code").inner_text() == "df"
    assert text.locator("ul ul ul li").inner_text() == "deepest"
    assert text.locator("math").count() >= 1 and "$e^" not in text.inner_text()
    assert text.locator("pre code.language-python .hljs-keyword").first.inner_text() == "import"
    # the actions have a bar of their own above the code, one line high in the narrow panel
    block = text.locator(".ja-codeblock").first
    bar, code = block.locator(".ja-code-actions").bounding_box(), block.locator("pre").bounding_box()
    assert bar and code and bar["y"] + bar["height"] <= code["y"] + 1 and bar["height"] < 40, (bar, code)
    page.screenshot(path=str(ARTIFACTS / f"panel-answer-code-actions-{theme}.png"))
    # Insert below the active cell, then replace the active (new) cell
    text.locator("[data-testid=ja-code-insert]").click()
    cells = page.locator(".jp-NotebookPanel .jp-Cell")
    page.wait_for_function("() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell').length === 2")
    assert "print(math.pi)" in cells.nth(1).locator(".jp-InputArea-editor").inner_text()
    assert cells.nth(0).locator(".jp-InputArea-editor").inner_text().strip() == "x = 1"
    cells.nth(0).locator(".jp-InputArea-prompt").click()  # the first cell is the active one
    text.locator("[data-testid=ja-code-replace]").click()
    page.wait_for_function(
        "() => document.querySelector('.jp-NotebookPanel .jp-Cell .jp-InputArea-editor')"
        ".innerText.includes('print(math.pi)')"
    )
    assert cells.count() == 2
    copy = text.locator("[data-testid=ja-code-copy]")
    copy.click()
    page.wait_for_function(
        "(sel) => document.querySelector(sel)?.textContent === 'Copied'",
        arg=f"{PANEL} .ja-text [data-testid=ja-code-copy]",
        timeout=5_000,
    )


def set_theme(page: Any, name: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{name}$")).click()
    page.wait_for_function(
        "(dark) => document.body.dataset.jpThemeLight === (dark ? 'false' : 'true')",
        arg="Dark" in name,
        timeout=30_000,
    )
    # JupyterLab covers the page with its splash while the theme loads: screenshots wait for it
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=30_000)


def test_tool_cards_show_code_once_and_keep_output_columns(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    code = (
        "import pandas as pd\n"
        "df = pd.DataFrame({'a': range(5), 'bbbbbbbbbbbbbbbbbbbbbb': range(5)})\n"
        "print(df.describe())"
    )
    call = ToolCall("python", json.dumps({"code": code}))
    server.queue(
        Reply(reasoning="Let me think about the numbers.", tool_calls=[call]),
        Reply(text="Described."),
    )
    panel = open_panel(page, lab, "tools.ipynb")
    ask(panel, "describe a frame")
    wait_text(page, "Described.")
    wait_idle(page)
    card = panel.locator('[data-testid=ja-tool][data-tool="python"]')
    assert card.get_attribute("data-status") == "completed"
    assert card.inner_text().count("import pandas as pd") == 1  # the input once
    assert card.locator("[data-testid=ja-tool-code] .hljs-keyword").first.inner_text() == "import"
    output = card.locator(".ja-output pre")
    assert output.evaluate("e => getComputedStyle(e).whiteSpace") == "pre"
    thinking = panel.locator("[data-testid=ja-reasoning] summary").first
    assert thinking.inner_text() != "Thinking…"


def test_escape_stops_and_the_panel_is_labelled(page: Any, lab: Lab, server: ScriptedServer) -> None:
    server.queue(Reply(text="word " * 3000, chunk_size=2, delay_per_chunk=0.01))
    panel = open_panel(page, lab, "escape.ipynb")
    assert panel.get_attribute("aria-label") == "Agent"
    tab = page.locator('.jp-SideBar .lm-TabBar-tab[data-id="jupyter-agent-panel"]')
    assert "Agent" in ((tab.get_attribute("aria-label") or "") + (tab.get_attribute("title") or ""))
    log = panel.locator("[role=log]")
    assert log.count() == 1 and log.get_attribute("aria-live") == "polite"
    assert panel.locator("[data-testid=ja-prompt]").get_attribute("aria-label")
    ask(panel, "write a lot")
    wait_text(page, "word word")
    panel.locator("[data-testid=ja-prompt]").press("Escape")
    page.wait_for_selector(f'{PANEL} .ja-root[data-state="idle"]', timeout=20_000)
    assert 0 < panel.locator(".ja-text").last.inner_text().count("word") < 3000
    assert page.evaluate("document.activeElement?.dataset?.testid") == "ja-prompt"


def contrast(rgb_a: str, rgb_b: str) -> float:
    def lum(rgb: str) -> float:
        parts = [float(x) / 255 for x in rgb[rgb.index("(") + 1 : rgb.index(")")].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in parts]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted([lum(rgb_a), lum(rgb_b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["JupyterLab Light", "JupyterLab Dark"])
def test_the_selected_completion_is_readable(page: Any, lab: Lab, theme: str) -> None:
    name = theme.split()[-1].lower()
    write_notebook(lab.root / f"complete-{name}.ipynb", "dataframe_one = 1")
    panel = open_panel(page, lab, f"complete-{name}.ipynb")
    set_theme(page, theme)
    box = panel.locator("[data-testid=ja-prompt]")
    box.click()
    box.type("look at @file:comp")
    active = panel.locator("[data-testid=ja-completions] li.ja-active")
    active.wait_for(timeout=30_000)
    fg, bg = active.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
    assert contrast(fg, bg) >= 4.5, (theme, fg, bg)
    page.screenshot(path=str(ARTIFACTS / f"panel-completion-{name}.png"))


def settled_top(page: Any, node: Any) -> float:
    """``node``'s top once two frames in a row leave it in place (a scroll still moving on a
    loaded machine would otherwise be measured mid-way)."""
    frames = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    top = float(node.bounding_box()["y"])
    for _ in range(50):
        page.evaluate(frames)
        now = float(node.bounding_box()["y"])
        if now == top:
            return now
        top = now
    return top


def test_a_long_session_opens_on_its_newest_messages_and_pages_back(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    """User sees: the newest messages and "Show earlier messages" at the top; each click puts
    the page before above what is shown, in order, without moving what they were reading."""
    server.queue(Reply(text="The newest answer."))
    panel = open_panel(page, lab, "long.ipynb")
    ask(panel, "the newest question")
    wait_text(page, "The newest answer.")
    wait_idle(page)
    store = SqliteStore.for_directory(lab.root)
    (sid,) = [
        s.id
        for s in store.list_sessions(None)
        if any("the newest question" in getattr(p, "text", "") for m in store.messages(s.id) for p in m.parts)
    ]
    for n in range(120):  # older than the two real messages (ids sort by time)
        mid = f"msg_{n:04d}"
        store.update_message(UserMessage(id=mid, session_id=sid))
        store.update_part(TextPart(id=f"prt_{n:04d}", session_id=sid, message_id=mid, text=f"old line {n}"))
    store.close()
    page.reload()
    panel = open_panel(page, lab, "long.ipynb")
    wait_text(page, "The newest answer.")
    shown = panel.locator(".ja-stream > .ja-msg")
    assert (
        shown.count() == 50 and "old line 72" in panel_text(panel) and "old line 71" not in panel_text(panel)
    )
    earlier = panel.locator("[data-testid=ja-older]")
    assert earlier.is_visible()
    for expected in (100, 122):
        earlier.scroll_into_view_if_needed()  # the user scrolled up to it
        first_id = panel.locator(".ja-older-row + .ja-msg").get_attribute("data-message")
        reading = panel.locator(f'[data-message="{first_id}"]')
        top = settled_top(page, reading)  # where they read once the scroll came to rest
        earlier.click()
        page.wait_for_function(
            "([sel, n]) => document.querySelectorAll(sel).length === n",
            arg=[f"{PANEL} .ja-stream > .ja-msg", expected],
            timeout=30_000,
        )
        page.wait_for_selector(f"{PANEL} .ja-stream:not([data-paging])")
        assert abs(settled_top(page, reading) - top) < 5  # what they were reading stays in place
    ids = panel.locator(".ja-stream > .ja-msg").evaluate_all("ns => ns.map(n => n.dataset.message)")
    assert ids == sorted(ids) and ids[:2] == ["msg_0000", "msg_0001"]
    assert earlier.count() == 0  # nothing older is left
    assert "old line 0" in panel_text(panel)


# ---------------------------------------------------------------- issue 31: first impressions


def panel_width(page: Any) -> float:
    return float(page.locator(PANEL).bounding_box()["width"])


def set_panel_width(page: Any, width: int) -> None:
    """Drag the sidebar's edge, as a user does, until the panel is ``width`` px wide."""
    box = page.locator(PANEL).bounding_box()
    x, y = box["x"] - 1, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + box["width"] - width, y, steps=4)
    page.mouse.up()
    page.wait_for_function(
        "([sel, w]) => Math.abs(document.querySelector(sel).getBoundingClientRect().width - w) < 6",
        arg=[PANEL, width],
        timeout=5_000,
    )


PARTS = (".ja-panel-top", ".ja-header", ".ja-code-actions", ".ja-panel-composer-row")


def overflowing(page: Any) -> list[str]:
    """Panel parts wider than their box (cut off or pushing the panel sideways)."""
    return list(
        page.evaluate(
            "(sels) => sels.flatMap(s => [...document.querySelectorAll(s)])"
            ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.className)",
            [PANEL, *(f"{PANEL} {part}" for part in PARTS)],
        )
    )


def one_line(page: Any, selector: str) -> list[float]:
    """Heights of the matches that take more than one line."""
    return list(
        page.evaluate(
            "(sel) => [...document.querySelectorAll(sel)].map(e => e.getBoundingClientRect().height)"
            ".filter(h => h > 34)",
            selector,
        )
    )


WIDTH_ANSWER = "Sum it up:\n\n```python\ntotal = sum(sales.values())\nprint(f'{total:,.1f}')\n```\n"


def _png(width: int, height: int) -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + b"\x20\x60\xc0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return "data:image/png;base64," + base64.b64encode(raw).decode()


def add_plots(root: Path, sid: str, count: int) -> None:
    """``count`` stored plot cards older than every message of session ``sid`` (store in ``root``)."""
    store = SqliteStore.for_directory(root)
    url = _png(800, 600)
    for n in range(count):  # older than the answers (ids sort by time)
        mid = f"msg_{n:04d}"
        store.update_message(UserMessage(id=mid, session_id=sid))
        state = ToolStateCompleted(
            input={"code": "sales.plot()"},
            output="[image/png attached]",
            time=ToolTimeCompleted(start=1),
            attachments=[Attachment(mime="image/png", url=url)],
        )
        store.update_part(
            ToolPart(
                id=f"prt_{n:04d}", session_id=sid, message_id=mid, call_id=f"c{n}", tool="python", state=state
            )
        )
    store.close()


def check_widths(page: Any, panel: Any) -> None:
    """At 400 and 250 px, light and dark: nothing cut or wrapped, icons (named) at 250 px."""
    bar = panel.locator(".ja-text .ja-code-actions").first
    assert bar.locator(".ja-label").all_inner_texts() == ["Copy", "Insert below", "Replace cell"]
    assert not one_line(page, f"{PANEL} .ja-code-actions, {PANEL} .ja-header, {PANEL} .ja-panel-top")
    for theme in ("light", "dark"):
        if theme == "dark":
            set_theme(page, "JupyterLab Dark")
        for width in (400, 250):
            set_panel_width(page, width)
            assert not overflowing(page), (theme, width, overflowing(page))
            assert not one_line(page, f"{PANEL} .ja-code-actions, {PANEL} .ja-header, {PANEL} .ja-panel-top")
            labels = panel.locator(".ja-code-action .ja-label, .ja-panel-top .ja-label")
            assert all(label.is_visible() == (width == 400) for label in labels.all()), (theme, width)
            for button in panel.locator(".ja-code-action, .ja-panel-top .ja-button").all():
                assert button.get_attribute("aria-label") and button.locator("svg.ja-icon").is_visible()
            copy = bar.locator("[data-testid=ja-code-copy]")
            fg, bg = copy.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
            assert contrast(fg, bg) >= 4.5, (theme, fg, bg)
            panel.screenshot(path=str(ARTIFACTS / f"panel-{width}-{theme}.png"))


def check_keyboard(page: Any, panel: Any, server: ScriptedServer) -> None:
    """Tab order, Escape after ↓ Jump to latest, and the focus-prompt shortcut."""
    long = "".join(f"Line {i}: still going.\n\n" for i in range(800))
    server.queue(Reply(text=long, chunk_size=30, delay_per_chunk=0.03))
    ask(panel, "write a lot")
    wait_text(page, "Line 120:")
    # from the first control of the panel, Tab meets the picker and Stop before any message
    panel.locator("[data-testid=ja-session-select]").focus()
    order: list[str] = []
    for _ in range(12):
        order.append(
            page.evaluate(
                "(sel) => { const e = document.activeElement; if (!document.querySelector(sel).contains(e))"
                " return 'outside'; if (e.closest('.ja-stream')) return 'transcript';"
                " return e.dataset.testid || e.className; }",
                PANEL,
            )
        )
        page.keyboard.press("Tab")
    assert order[0] == "ja-session-select" and "ja-stop" in order, order
    first_message = order.index("transcript") if "transcript" in order else len(order)
    assert order.index("ja-stop") < first_message, order
    # scrolled up, back with ↓ Jump to latest from the keyboard: the focus stays in the panel
    page.evaluate(f"document.querySelector('{PANEL} .ja-panel-stream').scrollTop = 0")
    jump = panel.locator("[data-testid=ja-jump-latest]")
    jump.wait_for(state="visible", timeout=5_000)
    jump.focus()
    page.keyboard.press("Enter")
    assert jump.is_hidden()
    assert page.evaluate(f"document.querySelector('{PANEL}').contains(document.activeElement)")
    page.keyboard.press("Escape")  # and Escape stops the answer from there
    wait_idle(page)
    assert 0 < panel_text(panel).count("still going") < 800
    # the shortcut from the notebook
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Escape")
    page.keyboard.press("Alt+i")
    page.wait_for_function("() => document.activeElement?.dataset?.testid === 'ja-prompt'", timeout=5_000)
    commands = page.evaluate("() => window.jupyterapp.commands.listCommands()")
    assert "jupyter-agent:focus-prompt" in commands


def test_first_impressions_width_keyboard_and_a_session_with_plots(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    """Issue 31 in one page load (browser tests are slow):
    - It opened about 250 px wide: code blocks cut, Copy / Insert below / Replace cell and the
      header wrapped. Now it opens where a code block and its buttons fit; dragged to 250 px the
      buttons become icons (named for screen readers) and nothing wraps. Screenshots for docs/.
    - Escape stops after ↓ Jump to latest (focus stayed in the panel, not on the page); Stop,
      Compact and the session picker come before the transcript in Tab order; Alt+I (the
      jupyter-agent:focus-prompt command) puts the cursor in the prompt from the notebook.
    - Reopened, a session holding plots showed its top, 2,300 px above the newest message (the
      scroll happened before the images had their height). Now the panel comes back by itself
      after a reload, at the user's width, on the newest message, and stays there while the
      images load.
    """
    page.set_viewport_size({"width": 1500, "height": 720})  # screenshots without a tall empty stretch
    folder = lab.root / "widths"
    folder.mkdir(exist_ok=True)  # a model whose window is known: the screenshots show the gauge, no notice
    limits = {"models": {server.model: {"limit": {"context": 128_000, "output": 8_192}}}}
    (folder / "jupyter-agent.json").write_text(json.dumps(limits))
    write_notebook(folder / "widths.ipynb", "sales = {'jan': 119.6, 'feb': 101.2}")
    server.queue(Reply(text=WIDTH_ANSWER))
    panel = open_panel(page, lab, "widths/widths.ipynb")
    page.click(".jp-NotebookPanel .jp-Cell .jp-InputArea-editor")
    page.keyboard.press("Shift+Enter")
    assert 400 <= panel_width(page) <= 0.4 * 1500, panel_width(page)
    ask(panel, "add up @sales")
    wait_text(page, "print(f'{total:,.1f}')")
    wait_idle(page)
    check_widths(page, panel)  # ends dragged to 250 px, dark
    check_keyboard(page, panel, server)
    server.queue(Reply(text="The newest answer."))
    ask(panel, "the newest question")
    wait_text(page, "The newest answer.")
    wait_idle(page)
    add_plots(folder, panel.locator("[data-testid=ja-session-select]").input_value(), 8)
    page.reload()  # no click on the tab: the panel is restored with the layout
    page.wait_for_selector(f'{PANEL}[data-state="open"]', state="visible", timeout=90_000)
    page.wait_for_function(f"() => document.querySelector('{PANEL}').getBoundingClientRect().width > 0")
    assert abs(panel_width(page) - 250) < 8, panel_width(page)  # the last width it was dragged to
    wait_text(page, "The newest answer.")
    page.wait_for_function(
        "(sel) => { const imgs = [...document.querySelectorAll(sel + ' img.ja-image')];"
        " return imgs.length === 8 && imgs.every(i => i.complete && i.naturalHeight > 0); }",
        arg=PANEL,
        timeout=30_000,
    )
    page.wait_for_timeout(500)  # the last decode's layout
    box = stream_box(page)
    assert box["height"] > box["client"] * 3, box  # the plots are really there, far above
    assert box["height"] - box["top"] - box["client"] < 30, box  # on the newest message
    assert visible_in_panel(page, f"{PANEL} .ja-msg:last-child .ja-text")
    assert "attached]" not in panel_text(panel)  # the plot, not a line about it
