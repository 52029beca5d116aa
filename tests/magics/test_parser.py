"""``%agent`` arguments → commands."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from jupyter_agent.magics.parser import (
    SUBCOMMANDS,
    USAGE,
    AgentCommand,
    PromptCommand,
    SubCommand,
    UsageError,
    parse,
)


def prompt(line: str, cell: str | None = None) -> PromptCommand:
    command = parse(line, cell)
    assert isinstance(command, PromptCommand)
    return command


# ---------------------------------------------------------------- options


def test_plain_prompt_keeps_its_text_as_typed() -> None:
    c = prompt("why did   this fail? it's odd")
    assert c == PromptCommand(prompt="why did   this fail? it's odd")


def test_every_option() -> None:
    c = prompt("--model openai/gpt-5 --agent plan --new --session ses_1 --wait  do it")
    assert (c.model, c.agent, c.new, c.session, c.wait) == (
        "openai/gpt-5",
        "plan",
        True,
        "ses_1",
        True,
    )
    assert c.prompt == "do it"
    assert prompt("--model=ollama/qwen --agent=explore find x").model == "ollama/qwen"
    assert prompt('--model "my model" hi').model == "my model"


@pytest.mark.parametrize("agent", ["build", "plan", "explore", "general"])
def test_each_agent(agent: str) -> None:
    assert prompt(f"--agent {agent} hi").agent == agent


def test_only_leading_options_are_options() -> None:
    c = prompt("--new explain --model flags and -- dashes")
    assert c.new and c.model is None and c.prompt == "explain --model flags and -- dashes"
    assert prompt("--wait -- --new is part of the prompt").prompt == "--new is part of the prompt"


def test_a_single_quoted_prompt_is_unquoted() -> None:
    assert prompt('"explain this"').prompt == "explain this"
    assert prompt("'it\"s'").prompt == 'it"s'
    assert prompt('"a" and "b"').prompt == '"a" and "b"'


def test_cell_body_is_the_prompt() -> None:
    c = prompt("--agent plan --wait", "\n  Plan the refactor.\n\nThen stop.\n")
    assert (c.agent, c.wait, c.prompt) == ("plan", True, "Plan the refactor.\n\nThen stop.")
    assert prompt("", "sessions").prompt == "sessions"  # a cell never holds a subcommand


@pytest.mark.parametrize(
    ("line", "cell", "problem"),
    [
        ("--foo hi", None, "Unknown option --foo."),
        ("--model", None, "--model needs a value."),
        ("--model --new hi", None, "--model needs a value."),
        ("--agent=", None, "--agent needs a value."),
        ("--agent wizard hi", None, "Unknown agent 'wizard'."),
        ("--new=yes hi", None, "--new takes no value."),
        ('--model "unclosed hi', None, "Could not read the options"),
        ("", None, "No prompt given."),
        ("--wait", None, "No prompt given."),
        ("--new", "   \n", "No prompt given."),
        ("--new then text", "body", "In %%agent the first line takes only options"),
    ],
)
def test_usage_errors_carry_the_full_usage(line: str, cell: str | None, problem: str) -> None:
    with pytest.raises(UsageError) as info:
        parse(line, cell)
    text = str(info.value)
    assert text.startswith(problem)
    assert text.endswith(USAGE)


def test_usage_lists_every_option_and_subcommand() -> None:
    for option in ("--model M", "--agent NAME", "--new", "--session ID", "--wait"):
        assert option in USAGE
    for name in SUBCOMMANDS:
        assert f"%agent {name}" in USAGE


# ---------------------------------------------------------------- subcommands


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("sessions", SubCommand(name="sessions")),
        ("new", SubCommand(name="new")),
        ("config", SubCommand(name="config")),
        ("stop", SubCommand(name="stop")),
        ("unrevert", SubCommand(name="unrevert")),
        ("  switch ses_0123abc ", SubCommand(name="switch", args=["ses_0123abc"])),
        ("rename My  analysis (v2)", SubCommand(name="rename", args=["My  analysis (v2)"])),
        ('rename "Quoted title"', SubCommand(name="rename", args=["Quoted title"])),
        ("rename it's mine", SubCommand(name="rename", args=["it's mine"])),
        ("fork", SubCommand(name="fork")),
        ("fork msg_0190abcDEF", SubCommand(name="fork", args=["msg_0190abcDEF"])),
        ("revert", SubCommand(name="revert")),
        ("revert msg_1", SubCommand(name="revert", args=["msg_1"])),
        ("export", SubCommand(name="export")),
        ("export --format md", SubCommand(name="export", args=["md"])),
        ("export --format=ipynb", SubCommand(name="export", args=["ipynb"])),
        ("export --format json", SubCommand(name="export", args=["json"])),
    ],
)
def test_subcommands(line: str, expected: SubCommand) -> None:
    assert parse(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "stop the server from crashing",
        "new features for the parser please",
        "sessions are confusing, explain",
        "fork this repo?",
        "revert the last change to utils.py",
        "switch to polars and compare",
        "export the dataframe to csv",
        "--new sessions",  # options before the word: a prompt
    ],
)
def test_a_subcommand_word_that_does_not_fit_is_a_prompt(line: str) -> None:
    assert isinstance(parse(line), PromptCommand)


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("switch", "switch needs a session ID"),
        ("rename", "rename needs a title"),
        ("export --format xml", "--format must be one of json, md, ipynb"),
        ("export --format", "--format must be one of"),
        ("export --as md", "Unknown export option --as."),
        ("export --format md extra", "Unexpected arguments"),
    ],
)
def test_subcommand_usage_errors(line: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        parse(line)


def test_commands_are_a_discriminated_union() -> None:
    adapter: TypeAdapter[PromptCommand | SubCommand] = TypeAdapter(AgentCommand)
    for command in (parse("--wait hi"), parse("switch ses_1")):
        assert adapter.validate_python(command.model_dump()) == command


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("verify", SubCommand(name="verify")),
        ("verify --with-agent", SubCommand(name="verify", args=["--with-agent"])),
        ("verify other.ipynb --with-agent", SubCommand(name="verify", args=["--with-agent", "other.ipynb"])),
        ("verify --kernel py311 a.ipynb", SubCommand(name="verify", args=["--kernel=py311", "a.ipynb"])),
        ("verify --kernel=py311", SubCommand(name="verify", args=["--kernel=py311"])),
        ("hidden", SubCommand(name="hidden")),
        ("fix verify", SubCommand(name="fix", args=["verify"])),
    ],
)
def test_verify_hidden_and_fix_verify(line: str, expected: SubCommand) -> None:
    assert parse(line) == expected


@pytest.mark.parametrize("line", ["verify that the totals add up", "hidden gems in @df", "verify notes.txt"])
def test_verify_and_hidden_words_that_start_a_prompt(line: str) -> None:
    assert prompt(line).prompt == line


def test_verify_refuses_an_unknown_option() -> None:
    with pytest.raises(UsageError, match="Unknown verify option --fast"):
        parse("verify --fast")
    with pytest.raises(UsageError, match="--kernel needs a kernelspec name"):
        parse("verify --kernel")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("complete", SubCommand(name="complete")),
        ("complete on", SubCommand(name="complete", args=["on"])),
        ("complete OFF", SubCommand(name="complete", args=["off"])),
        ("complete the function below", PromptCommand(prompt="complete the function below")),
        ("complete on the left", PromptCommand(prompt="complete on the left")),
    ],
)
def test_complete_switches_inline_completion_unless_it_reads_as_a_prompt(
    line: str, expected: SubCommand | PromptCommand
) -> None:
    assert parse(line) == expected
