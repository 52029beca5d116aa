"""Trusting the agent with a notebook, in real JupyterLab with a real kernel (issue 39):
every prompt undoable (cells, files, variables) and every cell edit reviewable.

The logic (snapshots, saved variables, cell steps, outcomes) is tested in the fast tier
(tests/checkpoint, tests/agent/test_undo_prompt.py, tests/agent/test_review_stage.py); these
two tests check that the open document, the kernel and the panel do what the user sees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import nbformat
import pytest
from lab_harness import ARTIFACTS, Lab
from scripted_server import Reply, ScriptedServer, ToolCall
from test_side_panel import PANEL, ask, lab, open_panel, page, server, wait_idle, wait_text

pytestmark = pytest.mark.browser
__all__ = ["lab", "page", "server"]  # module fixtures shared with test_side_panel.py
DATA = b"alpha\nbeta\n\xc3\xa9t\xc3\xa9\n"
SETUP = (
    "import sqlite3\nimport pandas as pd\nconn = sqlite3.connect(':memory:')\n"
    "sales = pd.DataFrame({'region': ['n', None, 's', 'e'], 'amount': [1.0, 2.0, None, 4.0]})"
)


def call(name: str, **args: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(name, json.dumps(args))])


def sources(page: Any) -> list[str]:
    """The open document's cell sources (the shared model: what co-editors see too)."""
    return list(
        page.evaluate(
            "() => { const m = window.jupyterapp.shell.currentWidget.content.model; return"
            " Array.from({length: m.cells.length}, (_, i) => m.cells.get(i).sharedModel.getSource()); }"
        )
    )


def cell_ids(page: Any) -> list[str]:
    return list(
        page.evaluate(
            "() => { const m = window.jupyterapp.shell.currentWidget.content.model;"
            " return Array.from({length: m.cells.length}, (_, i) => m.cells.get(i).id); }"
        )
    )


def run_in_new_cell(page: Any, source: str) -> str:
    """What the user does: a new cell at the end, run; returns its id (a revert moves cells)."""
    return str(
        page.evaluate(
            "async (src) => { const app = window.jupyterapp; const nb = app.shell.currentWidget.content;"
            " const m = nb.model; const cell = m.sharedModel.insertCell(m.cells.length,"
            " {cell_type: 'code', source: src}); nb.activeCellIndex = m.cells.length - 1;"
            " await app.commands.execute('notebook:run-cell'); return cell.id; }",
            source,
        )
    )


OUTPUT_OF = (
    "(id) => { const w = window.jupyterapp.shell.currentWidget.content.widgets.find(c => c.model.id === id);"
    " const out = w && w.node.querySelector('.jp-OutputArea'); return out ? out.innerText : ''; }"
)


def wait_output(page: Any, cell_id: str, needle: str, timeout: int = 60_000) -> str:
    page.wait_for_function(
        f"([id, needle]) => ({OUTPUT_OF})(id).includes(needle)", arg=[cell_id, needle], timeout=timeout
    )
    return str(page.evaluate(OUTPUT_OF, cell_id))


def wait_sources(page: Any, expected: list[str], timeout: int = 60_000) -> None:
    page.wait_for_function(
        "(want) => { const m = window.jupyterapp.shell.currentWidget.content.model;"
        " const got = Array.from({length: m.cells.length}, (_, i) => m.cells.get(i).sharedModel.getSource());"
        " return want.every((s, i) => got[i] === s) && got.length >= want.length; }",
        arg=expected,
        timeout=timeout,
    )


def test_revert_undoes_cells_files_and_variables_and_unrevert_reapplies(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    folder = lab.root / "apply"
    folder.mkdir(exist_ok=True)
    (folder / "jupyter-agent.json").write_text(json.dumps({"notebook": {"review": "apply"}}))
    (folder / "data.txt").write_bytes(DATA)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in (SETUP, "x = 1", "y = 2", "z = 3")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / "undo.ipynb")
    panel = open_panel(page, lab, "apply/undo.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    ids = cell_ids(page)
    code = "sales = sales.dropna()\nsales.to_csv('out.csv', index=False)\nconn.execute('create table t(a)')"
    server.queue(
        call("notebook_edit", action="replace", cell_id=ids[1], source="x = 10"),
        call("notebook_edit", action="replace", cell_id=ids[2], source="y = 20"),
        call("python", code=code),
        call("bash", command="sed -i 's/beta/gamma/' data.txt"),
        call("notebook_edit", action="delete", cell_id=ids[3]),
        Reply(text="Cleaned up the data."),
    )
    ask(panel, "clean up the sales data")
    wait_text(page, "Cleaned up the data.")
    wait_idle(page)
    edited = [SETUP, "x = 10", "y = 20"]
    assert sources(page) == edited  # applied live
    assert b"gamma" in (folder / "data.txt").read_bytes() and (folder / "out.csv").exists()
    out_csv = (folder / "out.csv").read_bytes()

    at = run_in_new_cell(page, "%agent revert")
    report = wait_output(page, at, "Cells:")
    wait_sources(page, [SETUP, "x = 1", "y = 2", "z = 3", "%agent revert"])
    assert cell_ids(page)[:4] == ids  # the same cells, the deleted one back in its place
    assert (folder / "data.txt").read_bytes() == DATA and not (folder / "out.csv").exists()
    assert "Files restored: data.txt" in report and "Files removed: out.csv" in report
    assert "Variables restored: sales" in report
    assert "variable conn:" in report and "pickle" in report  # named, not skipped
    check = run_in_new_cell(page, "print(sales.shape)")
    assert "(4, 2)" in wait_output(page, check, "(")
    page.screenshot(path=str(ARTIFACTS / "undo-revert-report.png"))

    at = run_in_new_cell(page, "%agent unrevert")
    wait_output(page, at, "Unreverted")
    page.wait_for_function(
        "() => { const m = window.jupyterapp.shell.currentWidget.content.model;"
        " return m.cells.get(1).sharedModel.getSource() === 'x = 10' && m.cells.length === 6; }",
        timeout=60_000,
    )
    assert sources(page)[:3] == edited and "z = 3" not in sources(page)
    assert b"gamma" in (folder / "data.txt").read_bytes() and (folder / "out.csv").read_bytes() == out_csv
    check = run_in_new_cell(page, "print(sales.shape)")
    assert "(2, 2)" in wait_output(page, check, "(")


def test_staged_edits_accept_reject_run_after_accept_and_undo_from_here(
    page: Any, lab: Lab, server: ScriptedServer
) -> None:
    folder = lab.root / "stage"
    folder.mkdir(exist_ok=True)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in ("v = 6", "w = 1")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path: Path = folder / "review.ipynb"
    nbformat.write(nb, path)
    panel = open_panel(page, lab, "stage/review.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    ids = cell_ids(page)
    server.queue(
        call("notebook_edit", action="replace", cell_id=ids[0], source="v = 6\nprint(v * 7)", run=True),
        call("notebook_edit", action="insert", index=2, source="w = 2"),
        call("notebook_edit", action="replace", cell_id=ids[1], source="w = 5"),
        Reply(text="Staged three edits for you."),
    )
    ask(panel, "print v times 7 and change w")
    wait_text(page, "Staged three edits for you.")
    wait_idle(page)
    staged = page.locator(".jp-NotebookPanel [data-testid=ja-staged]")
    staged.nth(2).wait_for(timeout=30_000)
    assert sources(page) == ["v = 6", "w = 1", ""]  # proposals, not applied: the placeholder is empty
    assert "print(v * 7)" in staged.nth(0).locator("[data-testid=ja-staged-diff]").inner_text()
    assert "3 staged cell edits" in panel.locator("[data-testid=ja-review-bar]").inner_text()
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    saved = nbformat.read(path, as_version=4)
    assert [c.source for c in saved.cells][:2] == ["v = 6", "w = 1"]  # undecided: not saved as source
    page.screenshot(path=str(ARTIFACTS / "review-staged.png"))
    shortcuts = page.evaluate(
        "() => window.jupyterapp.commands.keyBindings.filter(b => b.command.startsWith('jupyter-agent:'))"
        ".map(b => b.command + ' ' + b.keys.join(' '))"
    )
    assert "jupyter-agent:accept-change Ctrl Alt Y" in shortcuts
    assert "jupyter-agent:reject-all-changes Ctrl Alt Shift N" in shortcuts

    insert = page.locator(".jp-NotebookPanel [data-testid=ja-staged][data-action=insert]")
    insert.locator("[data-testid=ja-staged-reason]").fill("use w = 3 instead")
    insert.locator("[data-testid=ja-staged-reject]").click()
    page.wait_for_function("() => window.jupyterapp.shell.currentWidget.content.model.cells.length === 2")
    outputs = page.locator(".jp-NotebookPanel .jp-Cell").nth(0).locator(".jp-OutputArea")
    assert "42" not in outputs.inner_text()  # a staged run: true cell never runs before Accept
    panel.locator("[data-testid=ja-review-accept-all]").click()  # the other two at once
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-NotebookPanel .jp-Cell')[0]"
        ".querySelector('.jp-OutputArea').innerText.includes('42')",
        timeout=60_000,
    )
    assert sources(page) == ["v = 6\nprint(v * 7)", "w = 5"] and staged.count() == 0
    page.wait_for_selector(f"{PANEL} [data-testid=ja-review-bar][hidden]", state="attached", timeout=30_000)
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    saved = nbformat.read(path, as_version=4)
    assert [c.source for c in saved.cells] == ["v = 6\nprint(v * 7)", "w = 5"]
    assert all("jupyter_agent_review" not in c.metadata for c in saved.cells)

    server.queue(Reply(text="Noted both decisions."))
    ask(panel, "thanks")
    wait_text(page, "Noted both decisions.")
    sent = json.dumps(server.requests[-1]["body"]["messages"])
    assert sent.count("The user accepted the staged edit") == 2 and "It ran" in sent
    assert "The user rejected the staged edit" in sent and "use w = 3 instead" in sent

    # Undo from here on the first prompt: the accepted edit goes back in the open notebook
    first = panel.locator(".ja-msg.ja-user").first
    first.hover()
    first.locator("[data-testid=ja-undo]").click()
    box = panel.locator("[data-testid=ja-reverted]")
    box.wait_for(timeout=60_000)
    wait_sources(page, ["v = 6", "w = 1"])
    assert "Cells:" in box.inner_text() and panel.locator(".ja-msg.ja-user").count() == 0
    box.locator("[data-testid=ja-unrevert]").click()
    wait_sources(page, ["v = 6\nprint(v * 7)", "w = 5"])
    page.wait_for_selector(f"{PANEL} .ja-msg.ja-user", timeout=30_000)
