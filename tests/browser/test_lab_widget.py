"""A real JupyterLab in real Chromium: %agent streams text, a tool card and the gauge, then
leaves the run's transcript in the cell."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from lab_harness import ARTIFACTS, open_notebook, running_lab, write_notebook
from scripted_server import Reply, ToolCall

pytestmark = pytest.mark.browser


@pytest.fixture
def lab(tmp_path: Path, scripted_server: Any) -> Iterator[str]:
    write_notebook(tmp_path / "demo.ipynb", "%load_ext jupyter_agent", "%agent what files are here?")
    with running_lab(tmp_path, scripted_server) as server:
        yield server.url("demo.ipynb")


def test_agent_widget_streams_in_jupyterlab(lab: str, scripted_server: Any, chromium: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("list", json.dumps({}))]),
        # slow enough to watch the live view before the transcript replaces it
        Reply(
            text="Here is **one notebook**: `demo.ipynb`." + " More." * 300,
            chunk_size=6,
            delay_per_chunk=0.03,
        ),
    )
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_notebook(page, lab)
        page.click(".jp-Cell .jp-InputArea-editor")
        page.keyboard.press("Escape")
        page.keyboard.press("Shift+Enter")
        page.keyboard.press("Shift+Enter")
        text = page.locator(".jp-NotebookPanel [data-testid=ja-text]")
        text.first.wait_for(timeout=60_000)
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-NotebookPanel [data-testid=ja-text]')]"
            ".some(e => e.textContent.includes('one notebook'))",
            timeout=60_000,
        )
        tool = page.locator(".jp-NotebookPanel [data-testid=ja-tool]").first
        assert tool.get_attribute("data-tool") == "list"
        assert (
            page.locator(".jp-NotebookPanel [data-testid=ja-tool-status]").first.text_content() == "completed"
        )
        assert (
            page.locator(".jp-NotebookPanel .ja-text strong").first.text_content() == "one notebook"
        )  # markdown
        page.wait_for_function(
            "() => (document.querySelector('.jp-NotebookPanel [data-testid=ja-gauge]')?.textContent || '')"
            ".includes('tokens')",
            timeout=30_000,
        )
        transcript = page.locator(".jp-NotebookPanel .jp-agent-transcript")
        transcript.wait_for(timeout=90_000)
        assert transcript.locator("strong").first.text_content() == "one notebook"
        assert page.locator(".jp-NotebookPanel .ja-root").count() == 0
    finally:
        page.screenshot(path=str(ARTIFACTS / "lab-widget.png"), full_page=True)
        page.close()


@pytest.fixture
def two_prompts(tmp_path: Path, scripted_server: Any) -> Iterator[str]:
    write_notebook(tmp_path / "two.ipynb", "%load_ext jupyter_agent", "%agent first", "%agent second")
    with running_lab(tmp_path, scripted_server) as server:
        yield server.url("two.ipynb")


def test_a_later_cell_renders_with_the_module_already_on_the_page(
    two_prompts: str, scripted_server: Any, chromium: Any
) -> None:
    """Only the kernel's first widget carries the widget's code; the next cell's widget is a
    small loader that must find the module on the page and stream as the first did."""
    scripted_server.queue(
        Reply(text="First answer."),
        Reply(text="The **second answer** streams slowly. " * 4, chunk_size=1, delay_per_chunk=0.05),
    )
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_notebook(page, two_prompts)
        page.click(".jp-Cell .jp-InputArea-editor")
        page.keyboard.press("Escape")
        for _ in range(2):
            page.keyboard.press("Shift+Enter")
        transcript = "() => document.querySelector('.jp-NotebookPanel .jp-agent-transcript') !== null"
        page.wait_for_function(transcript, timeout=90_000)
        page.keyboard.press("Shift+Enter")
        page.wait_for_function(
            "() => [...document.querySelectorAll('.jp-NotebookPanel [data-testid=ja-text] strong')]"
            ".some(e => e.textContent.includes('second answer'))",
            timeout=60_000,
        )
    finally:
        page.screenshot(path=str(ARTIFACTS / "lab-widget-second.png"), full_page=True)
        page.close()
