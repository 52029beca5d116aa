"""Issue 36: the rule checker over a corpus of real command lines (fast tier).

Several thousand lines (the tldr pages' examples, everyday data-science commands, multi-line
scripts, and the shell lines of this project's own docs and notebooks) go through every
entry point of the checker: none may raise. The decision each line gets under the default
rules and under ``"rm *": "deny"`` is kept in ``tests/data/commands/decisions.tsv``, so a
change in what the rules decide shows in review. After a deliberate change, rewrite it with
``UPDATE_DECISIONS=1 pytest tests/tools/test_bash_corpus.py`` and read the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from bash_corpus import (
    DATA,
    HOME,
    POLICIES,
    PROJECT,
    Decider,
    documented,
    format_row,
    multiline,
    snapshot_lines,
)

from jupyter_agent.tools import bash_check
from jupyter_agent.tools.bash_parse import parse

SNAPSHOT = DATA / "decisions.tsv"


@pytest.fixture(autouse=True)
def fixed_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", HOME)


def _every_entry_point(command: str) -> None:
    parsed = parse(command)
    bash_check.patterns(parsed)
    bash_check.suspects(parsed)
    bash_check.write_problem(parsed)
    outside = bash_check.external_paths(parsed, PROJECT, PROJECT)
    bash_check.external_patterns(outside)
    bash_check.token_tails(command)


def test_the_corpus_is_a_few_thousand_real_lines() -> None:
    assert len(snapshot_lines()) > 3000
    assert len(documented()) > 20  # README, docs and notebooks are read


@pytest.mark.parametrize("source", ["snapshot", "multiline", "documented"])
def test_no_line_makes_a_checker_raise(source: str) -> None:
    lines = {"snapshot": snapshot_lines, "multiline": multiline, "documented": documented}[source]()
    failures = []
    for command in lines:
        try:
            _every_entry_point(command)
        except Exception as exc:  # collected: the report names every line that fails
            failures.append(f"{command!r}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures[:30])


async def test_decisions_match_the_snapshot(tmp_path: Path) -> None:
    deciders = [Decider(rules, tmp_path) for rules in POLICIES.values()]
    rows = ["\t".join([*POLICIES, "command"])]
    for command in snapshot_lines():
        rows.append(format_row([await d.decide(command) for d in deciders], command))
    text = "\n".join(rows) + "\n"
    if os.environ.get("UPDATE_DECISIONS") == "1":
        SNAPSHOT.write_text(text, encoding="utf-8")
    kept = SNAPSHOT.read_text(encoding="utf-8")
    diff = list(
        difflib.unified_diff(kept.splitlines(), text.splitlines(), "decisions.tsv", "now", lineterm="")
    )
    assert not diff, (
        "The rules now decide these lines differently (rewrite with UPDATE_DECISIONS=1 if meant):\n"
        + "\n".join(diff[:80])
    )


async def test_multiline_and_documented_lines_are_decided(tmp_path: Path) -> None:
    decider = Decider({}, tmp_path)
    for command in multiline() + documented():
        assert await decider.decide(command) in ("allow", "ask", "deny")
