"""The side panel lists the notebook's MCP servers under the session picker, in real Chromium.

User sees: "MCP servers: 2" right below the session picker as soon as the panel opens
(nothing started yet); after the first prompt each server's state, its tools, and for a
server that failed its error with the stderr lines it printed; a long tool's progress, live;
the server's prompt among the slash commands and its resource in the `@` completion.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_harness import ARTIFACTS, Lab, running_lab
from scripted_server import Reply, ScriptedServer, ToolCall
from test_side_panel import PANEL, ask, open_panel, wait_idle, wait_text

pytestmark = pytest.mark.browser
DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"
CRASH = "import sys; print('no database configured', file=sys.stderr); sys.exit(2)"


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedServer]:
    s = ScriptedServer().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, server: ScriptedServer, chromium: Any) -> Iterator[Lab]:
    with running_lab(tmp_path_factory.mktemp("panel-mcp"), server) as running:
        yield running


def test_panel_lists_mcp_servers_under_the_session_picker(
    chromium: Any, lab: Lab, server: ScriptedServer
) -> None:
    started = lab.root / "started.txt"
    config = {
        "mcp": {
            "demo": {
                "type": "local",
                "command": [sys.executable, str(DEMO), "stdio"],
                "environment": {"DEMO_STARTED_FILE": str(started)},
            },
            "broken": {"type": "local", "command": [sys.executable, "-c", CRASH]},
        },
        "permission": {"demo_*": "allow"},
    }
    (lab.root / "jupyter-agent.json").write_text(json.dumps(config))
    page = chromium.new_page(viewport={"width": 1500, "height": 1000})
    try:
        panel = open_panel(page, lab, "mcp.ipynb")
        mcp = panel.locator("[data-testid=ja-mcp]")
        mcp.wait_for(state="visible", timeout=60_000)
        assert mcp.locator("[data-testid=ja-mcp-summary]").inner_text().startswith("MCP servers: 2")
        picker = panel.locator("[data-testid=ja-session-select]").bounding_box()
        box = mcp.bounding_box()
        stream = panel.locator(".ja-panel-stream").bounding_box()
        assert picker["y"] + picker["height"] <= box["y"] + 1 and box["y"] < stream["y"]
        states = mcp.locator("[data-testid=ja-mcp-server]")
        assert [states.nth(i).get_attribute("data-state") for i in range(2)] == ["not started"] * 2
        assert not started.exists(), "opening the panel started an MCP server"

        server.queue(
            Reply(tool_calls=[ToolCall("demo_echo", json.dumps({"text": "panel"}))]),
            Reply(text="The server said ECHO PANEL."),
        )
        ask(panel, "echo panel through the demo server")
        wait_text(page, "The server said ECHO PANEL.")
        wait_idle(page)
        page.wait_for_selector(
            f'{PANEL} [data-testid=ja-mcp-server][data-state="connected"]', state="attached", timeout=60_000
        )
        mcp.locator("[data-testid=ja-mcp-summary]").click()
        demo, broken = (states.nth(0), states.nth(1))
        assert "1 failed" in mcp.locator("[data-testid=ja-mcp-summary]").inner_text()
        assert "demo_echo" in demo.locator(".ja-mcp-toolnames").inner_text()
        assert broken.get_attribute("data-state") == "failed"
        assert "no database configured" in broken.locator(".ja-mcp-error").inner_text()
        tool = panel.locator("[data-testid=ja-tool]").first
        assert tool.get_attribute("data-tool") == "demo_echo"
        assert tool.get_attribute("data-status") == "completed"
        page.screenshot(path=str(ARTIFACTS / "panel-mcp.png"))
        # a long MCP tool showed nothing between `running` and `completed`: the server's
        # progress (its message and the fraction done) now moves in the tool card while it runs
        server.queue(
            Reply(tool_calls=[ToolCall("demo_crunch", json.dumps({"steps": 6, "delay": 0.8}))]),
            Reply(text="Crunched all six."),
        )
        ask(panel, "crunch the chunks")
        progress = panel.locator('[data-testid=ja-tool][data-tool="demo_crunch"] [data-testid=ja-progress]')
        progress.wait_for(timeout=60_000)
        first = int(progress.get_attribute("aria-valuenow") or 0)
        assert re.search(r"crunched \d of 6 chunks · \d+ %", progress.inner_text()), progress.inner_text()
        page.screenshot(path=str(ARTIFACTS / "panel-mcp-progress.png"))
        page.wait_for_function(  # it moves: a later report replaces the first
            "([sel, first]) => Number(document.querySelector(sel)?.getAttribute('aria-valuenow')) > first",
            arg=[f'{PANEL} [data-tool="demo_crunch"] [data-testid=ja-progress]', first],
            timeout=30_000,
        )
        wait_text(page, "Crunched all six.")
        card = panel.locator('[data-testid=ja-tool][data-tool="demo_crunch"]')
        assert card.get_attribute("data-status") == "completed" and progress.count() == 0
        # the server's prompt is a slash command: listed after `/`, run with its argument
        box = panel.locator("[data-testid=ja-prompt]")
        box.fill("")
        box.type("/demo:")
        listed = panel.locator("[data-testid=ja-completions] li")
        listed.first.wait_for(timeout=30_000)
        assert listed.first.get_attribute("data-label") == "/demo:greet name=…", listed.all_inner_texts()
        box.press("Tab")
        assert box.input_value() == "/demo:greet "
        server.queue(Reply(text="Hello, Ada!"))
        asked = len(server.requests)
        box.type("name=Ada")
        box.press("Enter")
        wait_text(page, "Hello, Ada!")
        assert "Write a two-word greeting for Ada." in json.dumps(server.requests[asked]["body"]["messages"])
        wait_idle(page)
        # its resource is offered by @ completion
        box.type("summarise @demo:")
        panel.locator('[data-testid=ja-completions] li[data-label="demo:demo://notes/today"]').wait_for(
            timeout=30_000
        )
    finally:
        page.close()
