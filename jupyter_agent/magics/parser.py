"""``%agent`` / ``%%agent`` arguments → a pydantic command (pure; no IPython import).

Only leading ``--options`` are options: once the prompt starts, ``--`` inside it is text.
"""

from __future__ import annotations

import re
import shlex
from typing import Annotated, Literal

from pydantic import BaseModel, Field

SUBCOMMANDS = {
    "sessions": "list this notebook's sessions",
    "new": "start a fresh session",
    "switch": "switch to session ID",
    "rename": "rename the current session",
    "delete": "delete session ID (and its sub-agent sessions)",
    "config": "show the effective configuration (keys redacted)",
    "stop": "stop the running agent",
    "fork": "copy the session up to a message into a new one",
    "revert": "undo the agent's changes after a message",
    "unrevert": "undo the last revert",
    "export": "export the session (json, md, ipynb)",
}
AGENTS = ("build", "plan", "explore", "general")

USAGE = (
    f"""Usage:
  %agent [options] PROMPT          send PROMPT to the notebook's current session
  %%agent [options]                the cell body is the prompt

Options:
  --model M        use model M (a litellm model string, e.g. openai/gpt-5)
  --agent NAME     {" | ".join(AGENTS)} (default build)
  --new            start a fresh session
  --session ID     use session ID
  --wait           block until the agent is done

Subcommands:
"""
    + "\n".join(f"  %agent {name:<10} {text}" for name, text in SUBCOMMANDS.items())
    + """
  %compact         summarise the current session now

In a prompt: @var_name, @cell:N or @cell:ID, @file:path add that context."""
)


class UsageError(ValueError):
    """Bad arguments; the message is the full usage text with the problem on top."""


class PromptCommand(BaseModel):
    kind: Literal["prompt"] = "prompt"
    prompt: str
    model: str | None = None
    agent: str = "build"
    new: bool = False
    session: str | None = None
    wait: bool = False


class SubCommand(BaseModel):
    kind: Literal["sub"] = "sub"
    name: str
    args: list[str] = Field(default_factory=list)


AgentCommand = Annotated[PromptCommand | SubCommand, Field(discriminator="kind")]


def _fail(problem: str) -> UsageError:
    return UsageError(f"{problem}\n\n{USAGE}")


def parse(line: str, cell: str | None = None) -> PromptCommand | SubCommand:
    """Parse a ``%agent`` line (and the ``%%agent`` cell body, which is the prompt)."""
    try:
        words = shlex.split(line, posix=True)
    except ValueError as exc:
        raise _fail(f"Could not parse the options: {exc}") from None
    options: dict[str, object] = {}
    i = 0
    while i < len(words) and words[i].startswith("--"):
        flag = words[i]
        if flag in ("--new", "--wait"):
            options[flag[2:]] = True
            i += 1
        elif flag in ("--model", "--agent", "--session"):
            if i + 1 >= len(words):
                raise _fail(f"{flag} needs a value.")
            options[flag[2:]] = words[i + 1]
            i += 2
        else:
            raise _fail(f"Unknown option {flag}.")
    if options.get("agent") is not None and options["agent"] not in AGENTS:
        raise _fail(f"Unknown agent {options['agent']!r}.")
    rest_words = words[i:]
    if cell is None and rest_words and rest_words[0] in SUBCOMMANDS and not options:
        return SubCommand(name=rest_words[0], args=rest_words[1:])
    if cell is not None:
        if rest_words:
            raise _fail("In %%agent the first line takes only options; write the prompt in the cell.")
        prompt = cell.strip()
    else:
        prompt = _raw_rest(line, i)
    if not prompt:
        raise _fail("No prompt given.")
    return PromptCommand.model_validate({"prompt": prompt, **options})


def _raw_rest(line: str, consumed: int) -> str:
    """The prompt as typed (quotes and spacing kept) after ``consumed`` option words."""
    rest = line.strip()
    for _ in range(consumed):
        rest = rest.lstrip()
        if rest[:1] in "\"'":
            quote = rest[0]
            end = rest.find(quote, 1)
            rest = rest[end + 1 :] if end > 0 else ""
        else:
            parts = rest.split(None, 1)
            rest = parts[1] if len(parts) > 1 else ""
    return rest.strip()


class Mention(BaseModel):
    text: str
    """As written, e.g. ``@cell:3``."""
    kind: Literal["var", "cell", "file"]
    value: str


_MENTION = re.compile(r"(?<![\w.@])@(?:(cell):([\w-]+)|(file):(\S+)|([A-Za-z_][A-Za-z0-9_]*))")


def parse_mentions(prompt: str) -> list[Mention]:
    """``@df``, ``@cell:3`` / ``@cell:<id>``, ``@file:path`` (emails and ``@explore …`` excluded)."""
    found: list[Mention] = []
    leading = prompt.lstrip()
    for match in _MENTION.finditer(prompt):
        if match.group(1):
            found.append(Mention(text=match.group(0), kind="cell", value=match.group(2)))
        elif match.group(3):
            value = match.group(4).rstrip(".,;:)!?")
            found.append(Mention(text=f"@file:{value}", kind="file", value=value))
        else:
            name = match.group(5)
            at_start = match.start() == len(prompt) - len(leading)
            if at_start and name in ("explore", "general"):
                continue
            found.append(Mention(text=match.group(0), kind="var", value=name))
    return found
