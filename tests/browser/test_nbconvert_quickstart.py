"""The quickstart notebook, run and saved, then rendered by `jupyter nbconvert --to html` and
shown in Chromium: what GitHub or nbviewer readers see of the agent's work.

The screenshot (test-artifacts/quickstart-nbconvert.png) is the README's docs/saved-notebook.png.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_harness import ARTIFACTS, ROOT
from nbclient import NotebookClient
from scripted_server import Reply, ScriptedServer, ToolCall, Usage

pytestmark = [pytest.mark.browser, pytest.mark.kernel]
PLOT = (
    "import matplotlib.pyplot as plt\n"
    "ax = sales.plot(x='month', y='revenue', figsize=(6, 3), legend=False, title='Revenue by month')\n"
    "sales.loc[sales.revenue.idxmax(), 'month']"
)
ROLLING = "sales['revenue_3m'] = sales['revenue'].rolling(3).mean()\nsales.tail(3)"


def _run_quickstart(folder: Path, server: ScriptedServer) -> Path:
    usage = Usage(prompt_tokens=2_400, completion_tokens=90)
    plot = ToolCall("python", json.dumps({"code": PLOT}))
    server.queue(
        Reply(text="Let me look at the data and plot it.", tool_calls=[plot], usage=usage),
        Reply(text="**2025-01** had the highest revenue (119.6). The plot shows revenue by month:\n\n"
              "- a strong start in January and February\n- the low point in July (65.1)", usage=usage),
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": ROLLING}))], usage=usage),
        Reply(text="Added `revenue_3m`, the 3-month rolling mean:\n\n```python\n"
              "sales['revenue'].rolling(3).mean()\n```", usage=usage),
        Reply(text="## Goal\nExplore sales\n## Progress\n### Done\n- plotted revenue"),
    )  # fmt: skip
    server.title_reply = Reply(text="Sales: revenue by month")
    # configured as the README says, in a file: the quickstart must not set a model over it
    settings = {
        "model": server.model,
        "api_base": server.base_url,
        "models": {server.model: {"limit": {"context": 128_000, "output": 8_192}}},  # known: no notice
    }
    (folder / "jupyter-agent.json").write_text(json.dumps(settings))
    path = folder / "quickstart.ipynb"
    shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", path)
    nb = nbformat.read(path, as_version=4)
    env = {"JUPYTER_AGENT_API_KEY": "sk-test"}
    for name in ("JUPYTER_AGENT_MODEL", "JUPYTER_AGENT_API_BASE"):  # nothing in the environment
        assert name not in os.environ, name
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "a clone"]):
        subprocess.run([*git, *step], cwd=folder, check=True, capture_output=True)
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
        ).execute()
    finally:
        for k, v in old.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
    # running it changed nothing tracked, and left nothing git would list (the store ignores itself)
    status = subprocess.run([*git, "status", "--porcelain"], cwd=folder, capture_output=True, text=True)
    assert status.stdout == "", status.stdout
    nbformat.write(nb, path)
    return path


def test_the_saved_quickstart_reads_well_in_nbconvert_html(
    tmp_path: Path, scripted_server: ScriptedServer, chromium: Any
) -> None:
    path = _run_quickstart(tmp_path, scripted_server)
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", path.name],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    page = chromium.new_page(viewport={"width": 1000, "height": 900})
    try:
        page.goto((tmp_path / "quickstart.html").as_uri())
        transcripts = page.locator(".jp-agent-transcript")
        assert transcripts.count() == 3  # the two prompts and %compact
        first = transcripts.first
        assert first.locator("strong").first.inner_text() == "2025-01"
        assert "Which month had the highest revenue" in first.inner_text()
        assert first.locator("img").first.evaluate("i => i.naturalWidth") > 100  # the plot
        assert "done ·" in first.inner_text() and "openai/test" in first.inner_text()
        body = page.locator("body").inner_text()
        assert "object at 0x" not in body and "Error displaying widget" not in body
        # its first cell says which model is configured and where from (the file, not the notebook)
        assert re.search(r"model\s+openai/test\s+project file \S+jupyter-agent\.json", body), body[:2000]
        # the answer's code block: a box and Pygments colours from nbconvert's own CSS
        block = transcripts.nth(1).locator(".jp-agent-transcript-text div.highlight").first
        assert "rolling(3)" in block.inner_text()
        box, page_bg = block.evaluate(
            "e => [getComputedStyle(e).backgroundColor, getComputedStyle(document.body).backgroundColor]"
        )
        assert box != page_bg and block.evaluate("e => getComputedStyle(e).borderTopStyle") == "solid"
        pre = block.locator("pre").evaluate(
            "e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).paddingLeft]"
        )
        assert pre[0] in ("rgba(0, 0, 0, 0)", box) and pre[1] != "0px", pre  # the box shows through
        colours = block.evaluate(
            "e => new Set([...e.querySelectorAll('span')].map(s => getComputedStyle(s).color)).size"
        )
        assert colours >= 3, colours  # highlighted, not one colour
        # from the first %agent cell to the end of the second: the README's picture
        top, bottom = page.evaluate(
            """() => {
              const cells = [...document.querySelectorAll('.jp-agent-transcript')]
                .map(t => t.closest('.jp-Cell').getBoundingClientRect());
              return [cells[0].top + window.scrollY - 8, cells[1].bottom + window.scrollY + 8];
            }"""
        )
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(
            path=str(ARTIFACTS / "quickstart-nbconvert.png"),
            full_page=True,
            clip={"x": 0, "y": top, "width": 1000, "height": min(bottom - top, 1400)},
        )
    finally:
        page.close()
