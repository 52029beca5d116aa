"""The issue's acceptance run, in real kernels with the scripted model server: the agent's python
rebinds ``sales``, the cell's transcript and the side panel mark it, ``%agent verify`` names
``sales`` for the cell whose output differs, "Add as cell" inserts the agent's code through the
panel, and once it is in the notebook ``jupyter-agent verify`` exits 0. Then Stop: an
interrupted ``%agent verify`` leaves no verification kernel behind. A notebook run out of order
and one whose name lived in a deleted cell are reported by the CLI (exit 1, ``--json``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from cli_runner import run_cli
from nbformat.v4 import new_code_cell, new_notebook, new_output
from scripted_server import Reply, ToolCall
from ui.test_panel_comm import Panel

from jupyter_agent.cli import main

pytestmark = pytest.mark.kernel
WIDGET = "application/vnd.jupyter.widget-view+json"
AGENT_CODE = "sales = [x for x in sales if x >= 0]\nprint(len(sales))"


def final_display(kernel: Any, output: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    """The last update of a display (the transcript that replaced a widget, a verify table)."""
    display_id = output["transient"]["display_id"]

    def updates() -> list[dict[str, Any]]:
        return [
            m["content"]
            for m in kernel.iopub
            if m["msg_type"] == "update_display_data"
            and m["content"]["transient"]["display_id"] == display_id
        ]

    return updates()[-1]


def saved_cell(source: str, count: int | None, cell_id: str, outputs: list[dict[str, Any]]) -> Any:
    cell = new_code_cell(source, execution_count=count, id=cell_id)
    cell.outputs = [nbformat.from_dict({k: v for k, v in o.items() if k != "transient"}) for o in outputs]
    return cell


def children(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def test_hidden_state_is_marked_verified_added_as_a_cell_and_reproduces(
    start_kernel: Any, scripted_server: Any, tmp_path: Path
) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": AGENT_CODE}))]),
        Reply(text="Dropped the negative sale."),
    )
    kernel = start_kernel(frontend=True)
    panel = Panel(kernel)
    panel.wait("hello")
    first = kernel.execute("sales = [120, 80, -5, 95]", cell_id="c-sales")
    assert first.status == "ok"

    # the agent's python rebinds `sales`
    run = kernel.execute("%agent drop the negative sales", cell_id="c-agent")
    live = next(o for o in run.outputs if WIDGET in o["data"])
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "update_display_data"
            and m["content"]["transient"]["display_id"] == live["transient"]["display_id"]
        )
    )
    transcript = final_display(kernel, live)
    # the cell marks it (the transcript that replaced the widget), with the run's code for "Add as cell"
    assert "`sales` was changed by the agent's code, not by a cell." in transcript["data"]["text/plain"]
    assert "jp-agent-hidden-state" in transcript["data"]["text/html"]
    hidden = transcript["metadata"]["jupyter_agent"]["hidden_state"]
    assert hidden["names"] == ["sales"] and hidden["code"] == AGENT_CODE and hidden["cell_id"] == "c-agent"
    # so does the side panel showing the session
    marker = panel.wait("hidden_state")
    assert marker["run"] == hidden["run"] and marker["names"] == ["sales"] and marker["code"] == AGENT_CODE
    assert "`sales` was changed by the agent's code" in kernel.execute("%agent hidden").stdout

    printed = kernel.execute("print(len(sales), sum(sales))", cell_id="c-print")
    assert printed.stdout == "3 295\n"

    # the notebook as the front end saves it
    notebook = tmp_path / "analysis.ipynb"
    nb = new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        saved_cell("%load_ext jupyter_agent", 1, "c-load", []),
        saved_cell("sales = [120, 80, -5, 95]", 2, "c-sales", []),
        saved_cell(
            "%agent drop the negative sales", 3, "c-agent", [dict(transcript, output_type="display_data")]
        ),
        saved_cell(
            "print(len(sales), sum(sales))",
            4,
            "c-print",
            [new_output("stream", name="stdout", text="3 295\n")],
        ),
    ]
    nbformat.write(nb, notebook)
    saved = notebook.read_bytes()

    # %agent verify: the cell whose output differs, and the name behind it
    verified = kernel.execute("%agent verify", cell_id="c-verify", timeout=180)
    assert verified.status == "ok", verified.error
    table = final_display(kernel, verified.outputs[0])
    text = table["data"]["text/plain"]
    row = next(line for line in text.splitlines() if line.startswith("cell 4 [4]"))
    assert "differs" in row and "saved '3 295', now '4 290'" in row and "`sales`" in row, text
    assert "cell 3 [3]  skipped" in text and "Not reproducible" in text and "%agent fix verify" in text
    assert table["metadata"]["jupyter_agent"]["verify"]["reproducible"] is False
    assert "`sales` was changed" in text  # this kernel still holds it: said too
    assert notebook.read_bytes() == saved  # the notebook is only read

    # Fix with agent on that table: the report goes to the fix agent
    scripted_server.queue(Reply(text="The agent's cleaning of `sales` is in no cell: I will add it."))
    panel.send(type="fix", verify=True)
    panel.wait("status", lambda m: m["state"] == "idle" and "I will add it" in panel.text(), timeout=90)
    asked = json.dumps(
        [r for r in scripted_server.requests if "Make this notebook reproducible" in json.dumps(r)]
    )
    assert "cell 4 [4] differs" in asked and "`sales`" in asked and "verify_report_" in asked

    # "Add as cell": the agent's code, proposed below the run's cell through the panel's bridge
    # (staged for review like any agent edit) and added once the user accepts it
    panel.send(type="add_cell", run=hidden["run"])
    stage = panel.wait("nb_op", lambda m: m["op"] == "stage")
    staged = stage["staged"]
    assert staged["action"] == "insert" and staged["source"] == AGENT_CODE and staged["cell_type"] == "code"
    assert staged["after_id"] == "c-agent"  # below the run's cell
    panel.send(type="nb_reply", op_id=stage["op_id"], ok=True, cell_id="c-added")
    assert "No hidden state" not in kernel.execute("%agent hidden").stdout  # proposed, not added yet
    after = {"id": "c-added", "cell_type": "code", "source": AGENT_CODE, "metadata": {}, "outputs": []}
    panel.send(
        type="review", staged_id=staged["id"], decision="accept", cell_id="c-added", index=3, after=after
    )
    added = panel.wait("hidden_state", lambda m: m.get("added") == "c-added")
    assert added["run"] == hidden["run"]
    assert "No hidden state" in kernel.execute("%agent hidden").stdout

    # accepted and saved: the notebook reproduces (exit 0 from the CLI)
    nb.cells.insert(3, new_code_cell(AGENT_CODE, id="c-added"))
    nbformat.write(nb, notebook)
    ci = run_cli(["verify", str(notebook), "--json"], tmp_path)
    assert ci.returncode == 0, ci.stdout + ci.stderr
    report = json.loads(ci.stdout)
    assert report["reproducible"] is True
    assert [c["status"] for c in report["cells"]] == ["ran", "ran", "skipped", "ran", "ran"]

    # Stop: the kernel's interrupt ends a running %agent verify and its kernel with it
    slow = tmp_path / "slow.ipynb"
    nbformat.write(new_notebook(cells=[new_code_cell("import time\ntime.sleep(120)")]), slow)
    user_pid = kernel.km.provisioner.pid
    msg_id = kernel.submit(f"%agent verify {slow}")
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "update_display_data" and "cell 1" in m["content"]["data"].get("text/plain", "")
        ),
        timeout=90,
    )
    assert children(user_pid), "the verification kernel runs as a child of the user's kernel"
    kernel.interrupt()
    reply = kernel.wait_for(
        lambda m: m["msg_type"] == "error" and m["parent_header"].get("msg_id") == msg_id, timeout=30
    )
    assert reply["content"]["traceback"] == ["AgentRunError: Verification stopped: its kernel was shut down."]
    kernel.wait_for(  # the cell ended (a Run All stops there: the kernel drops what was queued)
        lambda m: (
            m["msg_type"] == "status"
            and m["parent_header"].get("msg_id") == msg_id
            and m["content"]["execution_state"] == "idle"
        )
    )
    assert children(user_pid) == []
    after = kernel.execute("print(len(sales))")
    assert after.stdout == "3\n", after  # the user's kernel is as it was


def test_the_cli_reports_out_of_order_cells_and_names_from_deleted_cells(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``main`` as the ``jupyter-agent`` command runs it (in this process: one kernel, no CLI start)."""
    nb = new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    )
    nb.cells = [
        new_code_cell("base = 10", execution_count=1),
        # `rate` was defined in a cell since deleted; this cell ran after the one below it
        new_code_cell(
            "print(base * rate)",
            execution_count=4,
            outputs=[new_output("stream", name="stdout", text="15.0\n")],
        ),
        new_code_cell(
            "total = base + 1\nprint(total)",
            execution_count=2,
            outputs=[new_output("stream", name="stdout", text="11\n")],
        ),
        new_code_cell(
            "print(total * 2)", execution_count=3, outputs=[new_output("stream", name="stdout", text="22\n")]
        ),
    ]
    notebook = tmp_path / "messy.ipynb"
    nbformat.write(nb, notebook)
    before = notebook.read_bytes()
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "messy.ipynb", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    cells = {c["index"]: c for c in report["cells"]}
    assert cells[1]["status"] == "failed" and cells[1]["error"] == "NameError: name 'rate' is not defined"
    assert cells[1]["hidden"] == ["rate"] and "`rate` is defined by no earlier cell" in " ".join(
        cells[1]["notes"]
    )
    assert cells[2]["status"] == "ran" and cells[3]["status"] == "ran"
    assert "executed out of order: it ran before cell 2 above it" in cells[2]["notes"]
    assert notebook.read_bytes() == before  # never written
    assert os.listdir(tmp_path) == ["messy.ipynb"]  # nothing written next to it either
