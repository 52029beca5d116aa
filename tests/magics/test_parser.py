"""%agent argument parsing and prompt mentions."""

from __future__ import annotations

import pytest

from jupyter_agent.magics.parser import PromptCommand, SubCommand, UsageError, parse, parse_mentions
from jupyter_agent.magics.transform import protect_agent_lines


def test_options_then_prompt_kept_as_typed() -> None:
    cmd = parse('--model openai/x --agent plan --new --wait plot "revenue" by month --not-an-option')
    assert cmd == PromptCommand(
        prompt='plot "revenue" by month --not-an-option', model="openai/x", agent="plan", new=True, wait=True
    )
    assert parse("--session ses_1 hi").session == "ses_1"  # type: ignore[union-attr]


def test_cell_magic_body_is_the_prompt() -> None:
    assert parse("--agent explore", "find the loader\nplease").prompt == "find the loader\nplease"  # type: ignore[union-attr]
    with pytest.raises(UsageError, match="first line takes only options"):
        parse("hello", "body")


def test_subcommands() -> None:
    assert parse("sessions") == SubCommand(name="sessions")
    assert parse("rename My analysis") == SubCommand(name="rename", args=["My", "analysis"])
    assert parse("switch ses_123") == SubCommand(name="switch", args=["ses_123"])


@pytest.mark.parametrize("line", ["--foo hi", "--model", "--agent nope hi", ""])
def test_usage_errors_show_usage(line: str) -> None:
    with pytest.raises(UsageError) as info:
        parse(line)
    assert "Usage:" in str(info.value) and "--model M" in str(info.value)


def test_mentions() -> None:
    found = parse_mentions("@explore look at @df, @cell:3, @cell:a1b2 and @file:data/x.csv. mail a@b.com")
    assert [(m.kind, m.value) for m in found] == [
        ("var", "df"),
        ("cell", "3"),
        ("cell", "a1b2"),
        ("file", "data/x.csv"),
    ]


def test_question_marks_do_not_trigger_ipython_help() -> None:
    assert protect_agent_lines(["%agent why did it fail?\n"]) == [
        "get_ipython().run_line_magic('agent', 'why did it fail?')\n"
    ]
    assert protect_agent_lines(["%%agent\n", "x?\n"]) == ["%%agent\n", "x?\n"]
