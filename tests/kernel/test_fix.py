"""Fix with agent in an IPython shell: which cell raised, and the prompt the ``fix`` agent gets."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from jupyter_agent.kernel import cell_errors
from jupyter_agent.kernel.cell_errors import CellErrors
from jupyter_agent.kernel.fix import NothingToFix, find_error, fix_prompt, from_frontend, named_variables
from jupyter_agent.magics.parser import SubCommand, parse


@pytest.fixture
def shell() -> Any:
    sh = InteractiveShell.instance()
    sh.reset()
    yield sh
    sh.events.callbacks["post_run_cell"].clear()


@pytest.fixture
def errors(shell: Any) -> CellErrors:
    found = CellErrors(shell)
    found.install()
    return found


def spill(tmp_path: Path) -> Any:
    def save(text: str) -> str:
        path = tmp_path / "spill.txt"
        path.write_text(text)
        return str(path)

    return save


def fenced(prompt: str, kind: str) -> list[tuple[str, str]]:
    """(ref, body) of each ``<kind_xxxxxxxx ref=…>`` block."""
    found = re.findall(rf'<({kind}_[0-9a-f]{{8}}) ref="([^"]*)"[^>]*>\n(.*?)\n</\1>', prompt, re.S)
    return [(ref, body) for _, ref, body in found]


def test_the_failed_cells_are_remembered_and_a_rerun_that_works_forgets_one(
    shell: Any, errors: CellErrors, monkeypatch: pytest.MonkeyPatch
) -> None:
    shell.run_cell("sales = {'jan': 10}", store_history=True)
    shell.run_cell(
        "def load(month):\n    return sales[month]\nload('mar')", store_history=True, cell_id="c-load"
    )
    shell.run_cell("1 +", store_history=True, cell_id="c-syntax")  # raises before it runs
    assert [e.ename for e in errors.errors.values()] == ["KeyError", "SyntaxError"]
    latest = find_error(errors, None)
    assert latest.cell_id == "c-syntax" and latest.label == f"In [{latest.count}]"
    load = find_error(errors, "c-load")
    assert load.evalue == "'mar'" and load.source.startswith("def load(month)")
    # the user's frames, not IPython's run_code above them
    assert "interactiveshell.py" not in load.traceback and "return sales[month]" in load.traceback
    assert find_error(errors, str(load.count)) == find_error(errors, f"[{load.count}]") == load
    shell.run_cell("1 + 1", store_history=True, cell_id="c-syntax")  # fixed by hand
    assert find_error(errors, None) == load
    with pytest.raises(NothingToFix, match="no error to fix"):
        find_error(errors, "1")
    monkeypatch.setattr(cell_errors, "KEEP", 3)
    for n in range(5):
        shell.run_cell(f"raise ValueError({n})", store_history=True, cell_id=f"c-{n}")
    assert len(errors.errors) == 3 and find_error(errors, None).evalue == "4"


def test_nothing_failed_yet_is_one_clear_sentence(errors: CellErrors) -> None:
    with pytest.raises(NothingToFix) as caught:
        find_error(errors, None)
    assert "No cell has raised an error" in str(caught.value) and "\n" not in str(caught.value)


def test_the_prompt_holds_the_cell_the_redacted_traceback_and_the_named_variables(
    shell: Any, errors: CellErrors, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DB_PASSWORD", "hunter2-hunter2")
    shell.run_cell("import os\nsales = {'jan': 10, 'feb': 12}\nlimit = 3", store_history=True)
    cell = (
        "def connect():\n"
        "    raise ConnectionError('no route to postgres://app:' + os.environ['DB_PASSWORD'] + '@db')\n"
        "rows = len(sales) + limit + connect()"
    )
    shell.run_cell(cell, store_history=True, cell_id="abc-123")
    words, prompt, hidden = fix_prompt(find_error(errors, None), shell, spill(tmp_path))
    # what the user sees: "Fix `In [2]`: ConnectionError: …", no blocks, no plumbing
    assert re.match(r"Fix `In \[\d+\]`: ConnectionError: no route", words), words
    assert "cell_id" not in words and "run: true" not in words and "<" not in words
    assert prompt.startswith(words) and "cell_id" not in prompt  # the chips: data, no plumbing
    assert 'cell_id "abc-123"' in hidden and "run: true" in hidden  # for the model only
    (source,) = fenced(prompt, "cell")
    assert source[1] == cell
    ((_, trace),) = fenced(prompt, "traceback")
    assert "ConnectionError" in trace and "connect()" in trace
    assert "hunter2-hunter2" not in prompt and "[REDACTED:DB_PASSWORD]" in trace
    refs = [ref for ref, _ in fenced(prompt, "mention")]
    assert refs == ["@sales", "@limit"]  # not os (a module), connect (a function), len (a builtin)
    assert "jan" in fenced(prompt, "mention")[0][1]


def test_a_huge_traceback_is_cut_like_a_tool_output_keeping_its_end(
    shell: Any, errors: CellErrors, tmp_path: Path
) -> None:
    shell.run_cell("rows = ['row %d' % i for i in range(30_000)]\nraise ValueError('\\n'.join(rows))")
    _, prompt, _ = fix_prompt(find_error(errors, None), shell, spill(tmp_path))
    ((_, trace),) = fenced(prompt, "traceback")
    assert len(trace.encode()) < 60_000 and trace.rstrip().endswith("row 29999")
    assert (tmp_path / "spill.txt").exists()  # the whole of it, where the agent can read it


def test_a_cell_that_does_not_parse_still_names_its_variables(shell: Any) -> None:
    shell.run_cell("frame = [1, 2]\nimport math", store_history=True)
    assert named_variables("print(frame[0]\nmath.pi", shell) == ["frame"]


def test_the_front_ends_error_output_loses_its_colours() -> None:
    error = from_frontend("1/0", "ZeroDivisionError", "division by zero",
                          ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"], 4, "id-1")  # fmt: skip
    assert error.traceback == "ZeroDivisionError: division by zero" and error.label == "In [4]"


@pytest.mark.parametrize(
    ("line", "args"),
    [("fix", []), ("fix 3", ["3"]), ("fix [3]", ["[3]"]), ("fix 1a2b3c4d", ["1a2b3c4d"]),
     ("fix 5f2c4f6e-0d54-4b1e", ["5f2c4f6e-0d54-4b1e"])],
)  # fmt: skip
def test_agent_fix_parses(line: str, args: list[str]) -> None:
    assert parse(line) == SubCommand(name="fix", args=args)


def test_agent_fix_with_words_is_a_prompt() -> None:
    assert parse("fix it please").kind == "prompt"  # type: ignore[union-attr]
    assert parse("fix the loader").kind == "prompt"  # type: ignore[union-attr]
