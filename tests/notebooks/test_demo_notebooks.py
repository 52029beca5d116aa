"""The demo notebooks run top to bottom (nbclient, headless) against the scripted server."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from scripted_server import Reply, ToolCall

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.kernel


def _run(path: Path, cwd: Path, server: Any, extra_cells: list[str]) -> Any:
    nb = nbformat.read(path, as_version=4)
    nb.cells += [nbformat.v4.new_code_cell(src) for src in extra_cells]
    env = {
        "JUPYTER_AGENT_MODEL": server.model,
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
    }
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        NotebookClient(
            nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}
        ).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb


def test_quickstart_runs_top_to_bottom(tmp_path: Path, scripted_server: Any) -> None:
    plot = (
        "import matplotlib.pyplot as plt\nax = sales.plot(x='month', y='revenue')\n"
        "sales.loc[sales.revenue.idxmax(), 'month']"
    )
    rolling = "sales['revenue_3m'] = sales['revenue'].rolling(3).mean()\nsales.tail(3)"
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": plot}))]),
        Reply(text="The highest revenue was in the month shown above; the plot is attached."),
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": rolling}))]),
        Reply(text="Added `revenue_3m`."),
        Reply(text="## Goal\nExplore sales\n## Progress\n### Done\n- plotted revenue"),
    )
    shutil.copy(ROOT / "notebooks" / "quickstart.ipynb", tmp_path / "quickstart.ipynb")
    nb = _run(
        tmp_path / "quickstart.ipynb",
        tmp_path,
        scripted_server,
        ["assert 'revenue_3m' in sales.columns\nprint('checked')"],
    )
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
    texts = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream"
    )
    assert "Compacted:" in texts and "checked" in texts
    markdown = [
        o["data"]["text/markdown"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "display_data" and "text/markdown" in o.get("data", {})
    ]
    # the answer survives in the saved notebook (the transcript that replaced the widget)
    assert any("Added `revenue_3m`." in m for m in markdown)
    widgets = nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {})
    assert not widgets.get("state")  # no widget state (with its JavaScript) is saved per cell
    first_request = json.dumps(scripted_server.requests[0]["body"]["messages"])
    assert "<mention_" in first_request and 'ref=\\"@sales\\">' in first_request
    assert "revenue" in first_request
    assert (tmp_path / ".jupyter-agent" / "sessions.db").exists()


def test_long_session_notebook_runs(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.default = Reply(text="Done with that step.")
    shutil.copy(ROOT / "notebooks" / "long-session.ipynb", tmp_path / "long-session.ipynb")
    nb = _run(tmp_path / "long-session.ipynb", tmp_path, scripted_server, [])
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert errors == []
