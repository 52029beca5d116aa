"""Issue 36: shell lines generated from a small grammar (pipes, ``&&``, quotes, heredocs,
``$( )``, words ending in ``/``, empty strings) through every checker entry point (hypothesis).

Two properties: nothing raises, and a line that runs ``rm`` at a command position is never
allowed under ``"rm *": "deny"`` (it is denied, or asks when the checker cannot tell).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from bash_corpus import HOME, PROJECT, Decider
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_agent.tools import bash_check
from jupyter_agent.tools.bash_parse import parse

WORDS = [
    "tests/", "a/b/", "/", "./", "..", "~/x/", "~nosuchuser/x", "data.txt", "-q", "-i.bak", "--out=x/",
    "'s/a/b/'", '"a b/"', "$'x\\n/'", "''", '""', "$X", "${X:-y/}", "'*.csv'", "2", "{}", "\\;", "%s",
]  # fmt: skip
PROGRAMS = [
    "ls",
    "echo",
    "sed",
    "awk",
    "python3",
    "node -e",
    "perl -ne",
    "git",
    "find .",
    "xargs",
    "make",
    "cat",
]
JOINERS = [" | ", " && ", " || ", "; ", "\n", " & "]
REDIRECTS = ["", " > out.txt", " 2>&1", " < data.txt", " >> log/", " 2>/dev/null"]


@st.composite
def simple(draw: st.DrawFn, rm: bool = False) -> str:
    program = "rm -f" if rm else draw(st.sampled_from(PROGRAMS))
    words = draw(st.lists(st.sampled_from(WORDS), max_size=4))
    return " ".join([program, *words]) + draw(st.sampled_from(REDIRECTS))


@st.composite
def wrapped(draw: st.DrawFn, rm: bool = False) -> str:
    inner = draw(simple(rm))
    shape = draw(
        st.sampled_from(
            ["{}", "({})", "{{ {}; }}", "echo $({})", "echo `{}`", "x=$({})", "if true; then {}; fi"]
        )
    )
    return shape.format(inner)


@st.composite
def line(draw: st.DrawFn, rm: bool = False) -> str:
    """A line of 1-4 commands; with ``rm``, one of them (at a random place) runs ``rm``."""
    count = draw(st.integers(1, 4))
    at = draw(st.integers(0, count - 1)) if rm else -1
    parts = [draw(wrapped(rm=i == at)) for i in range(count)]
    text = parts[0]
    for part in parts[1:]:
        text += draw(st.sampled_from(JOINERS)) + part
    if draw(st.booleans()):
        text += " <<'EOF'\n" + draw(st.sampled_from(["a/", "", "$(rm -f x)", "tests/ -q"])) + "\nEOF"
    return text


@pytest.fixture(autouse=True)
def fixed_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", HOME)


@pytest.fixture(scope="module")
def deciders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Decider]:
    root = tmp_path_factory.mktemp("grammar")
    return {"default": Decider({}, root), "rm-deny": Decider({"bash": {"rm *": "deny"}}, root)}


FAST = settings(
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@FAST
@given(command=line())
def test_no_generated_line_makes_a_checker_raise(command: str, deciders: dict[str, Decider]) -> None:
    parsed = parse(command)
    bash_check.patterns(parsed)
    bash_check.suspects(parsed)
    bash_check.write_problem(parsed)
    bash_check.external_patterns(bash_check.external_paths(parsed, PROJECT, PROJECT))
    bash_check.token_tails(command)
    assert asyncio.run(deciders["default"].decide(command)) in ("allow", "ask", "deny")


@FAST
@given(command=line(rm=True))
def test_a_generated_rm_is_never_allowed_under_a_deny_rule(
    command: str, deciders: dict[str, Decider]
) -> None:
    assert asyncio.run(deciders["rm-deny"].decide(command)) != "allow", command


def test_the_grammar_makes_words_that_end_in_a_slash() -> None:
    """The shape that crashed the checker (issue 36) is among the words."""
    assert any(w.endswith("/") for w in WORDS) and "''" in WORDS
    assert Path(PROJECT).is_absolute()
