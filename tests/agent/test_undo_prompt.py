"""Undo a prompt completely (the issue's scenario, in process): the agent edits cells, runs python
that drops rows from ``sales`` and writes ``out.csv``, runs ``sed -i`` through bash and deletes a
cell; revert puts back the cells, the files byte for byte and ``sales``, names what it could not
restore (an unpicklable connection), and unrevert re-applies all of it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from scripted_server import Reply, ToolCall

from jupyter_agent.agent.revert import RevertError
from jupyter_agent.core.messages import PatchPart
from jupyter_agent.tools.registry import register_kernel_tools

DATA = b"alpha\nbeta\n\xc3\xa9t\xc3\xa9\n"


@pytest.fixture
def ipython(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """An in-process IPython shell (the kernel's namespace without a kernel process), working
    in the notebook's folder as a kernel does."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.chdir(tmp_path)
    sh = InteractiveShell.instance()
    sh.reset()
    yield sh
    sh.reset()


def kernel_runtime(make_runtime: Any, shell: Any, path: Path, **config: Any) -> Any:
    runtime = make_runtime(**config)
    register_kernel_tools(runtime.registry)
    runtime.services.shell = shell
    runtime.services.notebook_path = path
    runtime.workspace.checkpoints.shell = shell
    runtime.generate_titles = False
    return runtime


def write_notebook(path: Path, *sources: str) -> list[str]:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    nbformat.write(nb, path)
    return [c["id"] for c in nb.cells]


def sources(path: Path) -> list[tuple[str, str]]:
    return [(c["id"], c["source"]) for c in nbformat.read(path, as_version=4).cells]


def call(name: str, **args: Any) -> Reply:
    return Reply(tool_calls=[ToolCall(name, json.dumps(args))])


async def test_revert_restores_cells_files_and_variables_and_unrevert_reapplies(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "analysis.ipynb"
    ids = write_notebook(notebook, "x = 1", "y = 2", "z = 3")
    (tmp_path / "data.txt").write_bytes(DATA)
    ipython.user_ns["sales"] = pd.DataFrame({"region": ["n", None, "s"], "amount": [1.0, 2.0, None]})
    ipython.user_ns["conn"] = sqlite3.connect(":memory:")
    code = "sales = sales.dropna()\nsales.to_csv('out.csv', index=False)\nconn.execute('create table t(a)')"
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id=ids[0], source="x = 10"),
        call("notebook_edit", action="replace", cell_id=ids[1], source="y = 20"),
        call("python", code=code),
        call("bash", command="sed -i 's/beta/gamma/' data.txt"),
        call("notebook_edit", action="delete", cell_id=ids[2]),
        Reply(text="Cleaned up."),
    )
    runtime = kernel_runtime(make_runtime, ipython, notebook, notebook={"review": "apply"})
    sid = await runtime.prompt("clean the data")
    edited = sources(notebook)
    assert edited == [(ids[0], "x = 10"), (ids[1], "y = 20")]
    assert b"gamma" in (tmp_path / "data.txt").read_bytes() and (tmp_path / "out.csv").exists()
    out_csv = (tmp_path / "out.csv").read_bytes()
    assert ipython.user_ns["sales"].shape == (1, 2)

    report = await runtime.revert(sid).finish()

    assert sources(notebook) == [(ids[0], "x = 1"), (ids[1], "y = 2"), (ids[2], "z = 3")]
    assert (tmp_path / "data.txt").read_bytes() == DATA and not (tmp_path / "out.csv").exists()
    assert ipython.user_ns["sales"].shape == (3, 2)
    text = report.text()
    assert "Files restored: data.txt" in text and "Files removed: out.csv" in text
    assert "Variables restored: sales" in text
    assert any(line.startswith("variable conn:") and "pickle" in line for line in report.not_restored)
    assert len(report.cells) == 3 and "analysis.ipynb" not in " ".join(report.not_restored)
    assert runtime.recorder(sid).history() == []  # the prompt is hidden at once

    again = await runtime.unrevert(sid).finish()

    assert sources(notebook) == edited and again.kind == "unrevert"
    assert b"gamma" in (tmp_path / "data.txt").read_bytes()
    assert (tmp_path / "out.csv").read_bytes() == out_csv
    assert ipython.user_ns["sales"].shape == (1, 2)
    ipython.user_ns["conn"].close()


async def test_nothing_is_copied_for_names_the_code_only_reads(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "n.ipynb"
    write_notebook(notebook, "")
    ipython.user_ns["big"] = pd.DataFrame({"a": range(1000)})
    scripted_model.queue(
        call("python", code="print(len(big), big.shape)\ntotal = len(big) + big.shape[1]"), Reply(text="ok")
    )
    runtime = kernel_runtime(make_runtime, ipython, notebook)
    sid = await runtime.prompt("sum it")
    saves = [
        v
        for m in runtime.store.messages(sid)
        for p in m.parts
        if isinstance(p, PatchPart)
        for v in p.variables
    ]
    assert [(v.name, v.how) for v in saves] == [("total", "absent")]  # `big` is read, never copied


async def test_revert_from_another_process_names_the_variables_it_cannot_restore(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "n.ipynb"
    write_notebook(notebook, "")
    ipython.user_ns["rows"] = [1, 2]
    scripted_model.queue(call("python", code="rows.append(3)"), Reply(text="ok"))
    runtime = kernel_runtime(make_runtime, ipython, notebook)
    sid = await runtime.prompt("append")
    runtime.workspace.checkpoints.shell = None  # what `jupyter-agent sessions revert` has
    report = await runtime.revert(sid).finish()
    assert report.not_restored == [
        "variable rows: only the notebook's kernel holds saved variables: revert "
        "from the notebook (%agent revert)"
    ]
    assert ipython.user_ns["rows"] == [1, 2, 3]


async def test_reverting_further_back_then_unreverting_returns_to_the_latest_state(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "n.ipynb"
    write_notebook(notebook, "")
    (tmp_path / "log.txt").write_text("v0\n")
    ipython.user_ns["rows"] = [0]
    scripted_model.queue(
        call("python", code="rows.append(1)\nopen('log.txt', 'a').write('v1\\n')"),
        Reply(text="one"),
        call("bash", command="echo v2 >> log.txt"),
        call("python", code="rows.append(2)"),
        Reply(text="two"),
    )
    runtime = kernel_runtime(make_runtime, ipython, notebook)
    sid = await runtime.prompt("first")
    await runtime.prompt("second", session_id=sid)
    prompts = [m.info.id for m in runtime.store.messages(sid) if m.info.role == "user"]
    await runtime.revert(sid, prompts[1]).finish()
    assert (tmp_path / "log.txt").read_text() == "v0\nv1\n" and ipython.user_ns["rows"] == [0, 1]
    await runtime.revert(sid, prompts[0]).finish()  # further back while the first is pending
    assert (tmp_path / "log.txt").read_text() == "v0\n" and ipython.user_ns["rows"] == [0]
    await runtime.unrevert(sid).finish()
    assert (tmp_path / "log.txt").read_text() == "v0\nv1\nv2\n" and ipython.user_ns["rows"] == [0, 1, 2]


async def test_the_open_notebooks_file_is_the_frontends_not_a_tool_change(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """JupyterLab saves the open notebook (autosave too) while a tool runs: a revert must not put
    an old copy of the file under the open document."""
    notebook = tmp_path / "open.ipynb"
    write_notebook(notebook, "x = 1")
    monkeypatch.setenv("JPY_SESSION_NAME", str(notebook))
    saved = (
        "from pathlib import Path\np = Path('open.ipynb')\np.write_text(p.read_text().replace('= 1', '= 2'))"
    )
    scripted_model.queue(call("python", code=saved + "\nopen('other.txt', 'w').write('o')"), Reply(text="ok"))
    runtime = kernel_runtime(make_runtime, ipython, notebook)
    sid = await runtime.prompt("go")
    changed = [
        Path(c.path).name
        for m in runtime.store.messages(sid)
        for p in m.parts
        if isinstance(p, PatchPart)
        for c in p.files
    ]
    assert changed == ["other.txt"]


async def test_a_stored_cell_change_outside_the_project_is_refused(
    make_runtime: Any, scripted_model: Any, ipython: Any, tmp_path: Path
) -> None:
    notebook = tmp_path / "n.ipynb"
    ids = write_notebook(notebook, "x = 1")
    scripted_model.queue(
        call("notebook_edit", action="replace", cell_id=ids[0], source="x = 2"), Reply(text="ok")
    )
    runtime = kernel_runtime(make_runtime, ipython, notebook, notebook={"review": "apply"})
    sid = await runtime.prompt("go")
    patch = next(
        p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, PatchPart) and p.cells
    )
    victim = tmp_path.parent / f"{tmp_path.name}-victim.ipynb"
    tampered = [patch.cells[0].model_copy(update={"notebook": str(victim)})]
    runtime.store.update_part(patch.model_copy(update={"cells": tampered}))
    with pytest.raises(RevertError, match="outside the project"):
        runtime.revert(sid)
    assert not victim.exists() and sources(notebook) == [(ids[0], "x = 2")]


async def test_a_large_file_the_agent_made_is_removed_and_the_unrevert_says_it_cannot_return(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "big.csv").write_text("y" * 500)
    scripted_model.queue(
        call("bash", command="printf 'x%.0s' $(seq 400) > out.csv && printf 'z' >> big.csv"), Reply(text="ok")
    )
    runtime = make_runtime(checkpoint={"max_file_bytes": 100})
    runtime.generate_titles = False
    sid = await runtime.prompt("make a big file")
    report = await runtime.revert(sid).finish()
    assert not (tmp_path / "out.csv").exists() and report.files_removed == ["out.csv"]
    assert any(line.startswith("big.csv: ") and "max_file_bytes" in line for line in report.not_restored)
    back = await runtime.unrevert(sid).finish()
    assert not (tmp_path / "out.csv").exists()  # 400 bytes were too many to keep for the unrevert
    assert any(line.startswith("out.csv: ") for line in back.not_restored)
