"""What the saved notebook says (``static.py``), each cell's verdict (``judge.py``) and the
report (``report.py``), without a kernel: the fresh outputs are given."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jupyter_agent.kernel.verify_fix import NothingToVerifyFix, verify_fix_prompt
from jupyter_agent.repro.judge import judge, skipped
from jupyter_agent.repro.report import CellReport, VerifyReport
from jupyter_agent.repro.static import analyse_notebook, is_agent_cell, is_verify_cell


def code(source: str, count: int | None, *outputs: dict[str, Any], **meta: Any) -> dict[str, Any]:
    return {
        "cell_type": "code",
        "source": source,
        "execution_count": count,
        "outputs": list(outputs),
        "id": meta.get("id", "c"),
    }


def out(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def transcript(*names: str) -> dict[str, Any]:
    meta = {
        "jupyter_agent": {
            "session_id": "ses_1",
            "hidden_state": {"run": "r", "names": list(names), "code": "…"},
        }
    }
    return {"output_type": "display_data", "data": {"text/plain": "You: …"}, "metadata": meta}


NOTEBOOK = [
    {"cell_type": "markdown", "source": "# Sales"},
    code("sales = [120, 80, -5, 95]", 1),
    code("%agent drop the negative sales", 2, transcript("sales")),
    code("print(len(sales), sum(sales))", 3, out("3 295\n")),
    code("print(a + b)", 1, out("3\n")),  # ran first, before the cells above; `b` lives in no cell
    code("a = 1", 5),
]


def test_agent_cells() -> None:
    assert (
        is_agent_cell("%agent hi")
        and is_agent_cell("  %%agent --wait\nclean it")
        and is_agent_cell("x = 1\n%agent go")
    )
    assert not is_agent_cell("x = '%agent'") and not is_agent_cell("%agentx")
    assert is_verify_cell("%agent verify") and is_verify_cell("%agent verify --with-agent a.ipynb")
    assert not is_verify_cell("%agent verify that the totals add up")  # a prompt


def test_what_the_saved_notebook_says() -> None:
    facts = {f.number: f for f in analyse_notebook(NOTEBOOK)}
    assert set(facts) == {2, 3, 4, 5, 6}  # code cells, numbered by position (markdown counted)
    assert facts[3].agent and not facts[3].names.binds
    assert facts[4].agent_changed == {"sales": 2}
    assert facts[5].out_of_order == 3 and facts[5].undefined == ["b"] and facts[5].later == {"a": 5}
    assert facts[6].out_of_order is None and not facts[6].undefined


def test_a_cell_that_binds_the_name_again_clears_the_agents_change() -> None:
    cells = [*NOTEBOOK[:3], code("sales = [1]", 3), code("print(sales)", 4)]
    assert analyse_notebook(cells)[-1].agent_changed == {}


def test_verdicts() -> None:
    facts = {f.number: f for f in analyse_notebook(NOTEBOOK)}
    agent = skipped(facts[3], NOTEBOOK[2])
    assert agent.status == "skipped" and "--with-agent" in agent.notes[0]
    differs = judge(facts[4], NOTEBOOK[3], [out("4 290\n")])
    assert differs.status == "differs" and differs.diff is not None and differs.diff.fresh == "4 290"
    assert (
        differs.agent_changed == ["sales"]
        and "`sales`, which the agent's code changed (cell 3)" in differs.detail()
    )
    error = {
        "output_type": "error",
        "ename": "NameError",
        "evalue": "name 'a' is not defined",
        "traceback": [],
    }
    failed = judge(facts[5], NOTEBOOK[4], [error])
    assert failed.status == "failed" and failed.error == "NameError: name 'a' is not defined"
    assert failed.hidden == ["b", "a"]
    detail = failed.detail()
    assert "executed out of order: it ran before cell 4 above it" in detail
    assert "`b` is defined by no earlier cell" in detail and "`a` is defined only by cell 6 below" in detail
    ran = judge(facts[6], NOTEBOOK[5], [])
    assert ran.status == "ran" and not ran.notes
    live = judge(
        facts[4],
        NOTEBOOK[3],
        [out("1 1\n")],
        live_hidden={"sales": "the agent's code changed in your kernel"},
    )
    assert live.agent_changed == ["sales"]  # the notebook said so already: told once


def test_a_cell_never_run_and_one_that_raised_as_saved() -> None:
    fresh = code("x = 1", None)
    (fact,) = analyse_notebook([fresh])
    assert judge(fact, fresh, [out("anything")]).notes == [
        "not run in the saved notebook: no outputs to compare"
    ]
    error = {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": []}
    raising = code("raise ValueError('bad')", 1, error)
    (fact,) = analyse_notebook([raising])
    assert judge(fact, raising, [error]).status == "ran"
    assert judge(fact, raising, None, failure="ran longer than the 2 s cell limit").status == "failed"
    assert judge(fact, raising, None).status == "not run"


def report(*cells: CellReport, stopped: str | None = None) -> VerifyReport:
    return VerifyReport(
        notebook="/w/a.ipynb", kernel="python3", cells=list(cells), seconds=1.25, stopped=stopped
    )


def test_report_verdict_exit_code_and_renderings() -> None:
    ok = report(
        CellReport(index=0, status="ran", saved_count=1), CellReport(index=1, status="skipped", agent=True)
    )
    assert ok.reproducible and ok.exit_code == 0 and ok.first_divergence() is None
    assert ok.summary().startswith("Reproducible: 1 code cell ran top to bottom in a fresh python3 kernel")
    bad = report(
        CellReport(index=0, status="ran"),
        CellReport(
            index=3, status="differs", saved_count=3, agent_changed=["sales"], notes=["reads `sales`"]
        ),
        CellReport(index=4, status="failed", error="NameError: name 'b' is not defined"),
    )
    assert not bad.reproducible and bad.exit_code == 1
    assert bad.summary().endswith("First divergence: cell 4 [3].") and "1 failed, 1 differs" in bad.summary()
    text = bad.text()
    assert "cell 4 [3]  differs" in text and "NameError" in text
    html = bad.html()
    assert 'data-verdict="differs"' in html and "&#x27;b&#x27;" in html  # escaped
    data = json.loads(bad.model_dump_json())
    assert (
        data["reproducible"] is False
        and data["exit_code"] == 1
        and data["cells"][1]["agent_changed"] == ["sales"]
    )
    assert not report(CellReport(index=0, status="ran"), stopped="stopped by the user").reproducible


def test_fix_with_agent_hands_over_the_first_divergence() -> None:
    with pytest.raises(NothingToVerifyFix, match="run %agent verify first"):
        verify_fix_prompt(None)
    with pytest.raises(NothingToVerifyFix, match="reproduced"):
        verify_fix_prompt(report(CellReport(index=0, status="ran")))
    bad = report(CellReport(index=3, status="differs", saved_count=3, agent_changed=["sales"]))
    words, prompt = verify_fix_prompt(bad)
    assert "cell 4 [3] differs" in words and "`sales`" in words and "notebook_edit" in words
    assert prompt.startswith(words) and "<verify_report_" in prompt and "cell 4 [3]" in prompt.split(words)[1]
