"""Which notebook a headless runner executes: from its command line and the cell running now."""

from __future__ import annotations

from pathlib import Path

import nbformat

from jupyter_agent.tools.notebook_path import find_notebook_path, notebook_in_command


def _notebook(path: Path, *cells: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)
    return path


def test_papermill_names_its_input_before_its_output(tmp_path: Path) -> None:
    source = _notebook(tmp_path / "in.ipynb", "%load_ext jupyter_agent", "%%agent\nsummarise")
    _notebook(tmp_path / "out.ipynb", "# Parameters\nx = 1", "%load_ext jupyter_agent", "%%agent\nsummarise")
    argv = ["python", "/venv/bin/papermill", "in.ipynb", "out.ipynb", "-p", "x", "1", "--log-output"]
    assert notebook_in_command(argv, tmp_path, "%%agent\nsummarise\n") == source.resolve()


def test_nbconvert_with_several_notebooks_names_the_one_running_this_cell(tmp_path: Path) -> None:
    _notebook(tmp_path / "a.ipynb", "%%agent\nclean the data")
    (tmp_path / "sub").mkdir()
    b = _notebook(tmp_path / "sub" / "b.ipynb", "%%agent\nplot it")
    argv = ["/venv/bin/jupyter-nbconvert", "--to", "notebook", "--execute", "a.ipynb", "sub/b.ipynb"]
    assert notebook_in_command(argv, tmp_path, "%%agent\nplot it") == b.resolve()
    assert notebook_in_command(argv, tmp_path, "%%agent\nsomething else") is None
    # nbconvert's --output is where it writes, not what it runs
    _notebook(tmp_path / "old.ipynb", "%%agent\nplot it")
    argv = ["jupyter-nbconvert", "--execute", "--output", "old.ipynb", "sub/b.ipynb"]
    assert notebook_in_command(argv, tmp_path, "%%agent\nplot it") == b.resolve()


def test_what_is_not_a_readable_notebook_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "broken.ipynb").write_bytes(b"\xff\xfe not json")
    (tmp_path / "list.ipynb").write_text("[1, 2]")
    (tmp_path / "dir.ipynb").mkdir()
    argv = ["papermill", "missing.ipynb", "broken.ipynb", "list.ipynb", "dir.ipynb", "-"]
    assert notebook_in_command(argv, tmp_path, "%agent hi") is None


def test_papermill_injected_input_path(tmp_path: Path) -> None:
    ns = {"PAPERMILL_INPUT_PATH": str(tmp_path / "report.ipynb")}
    assert find_notebook_path(ns, {}) == (tmp_path / "report.ipynb").resolve()
    assert find_notebook_path({}, {"JUPYTER_AGENT_NOTEBOOK": "x.ipynb"}) == Path("x.ipynb").resolve()
