"""``%agent`` / ``%%agent`` arguments → a pydantic command (pure; no IPython import).

Only leading ``--options`` are options: once the prompt starts, ``--`` inside it is text,
and the prompt is kept exactly as typed (an apostrophe must not break shell-style quoting).
A line that starts with a subcommand word but does not fit that subcommand's form
(``%agent stop the server from crashing``) is a prompt, not an error.
"""

from __future__ import annotations

import io
import re
import shlex
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from jupyter_agent.core.agents import PROMPTABLE
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.magics.help_text import SUBCOMMANDS, USAGE

EXPORT_FORMATS = ("json", "md", "ipynb")
_FLAGS = {"--new": "new", "--wait": "wait", "--continue": "cont", "--no-raise": "no_raise"}
"""Flags and the PromptCommand field each sets."""
_VALUED = ("--model", "--agent", "--session")
_NO_ARGS = ("sessions", "new", "stop", "unrevert")
_MESSAGE_ID = re.compile(r"^msg_[A-Za-z0-9]+$")
_CELL_REF = re.compile(r"^(?:\[?\d+\]?|(?=[\w-]*[\d-])[\w-]{4,64})$")
"""An execution count (``3``, ``[3]``) or a notebook cell id (has a digit or a dash)."""


class UsageError(UsageFailure, ValueError):
    """Bad arguments; the message is the problem followed by the full usage text."""


class PromptCommand(BaseModel):
    kind: Literal["prompt"] = "prompt"
    prompt: str
    model: str | None = None
    agent: str = "build"
    new: bool = False
    session: str | None = None
    wait: bool = False
    cont: bool = False
    """``--continue``: the notebook's latest session, also in a headless kernel."""
    no_raise: bool = False
    """``--no-raise``: a blocking run that fails shows the error instead of raising."""


class SubCommand(BaseModel):
    kind: Literal["sub"] = "sub"
    name: str
    args: list[str] = Field(default_factory=list)
    """``switch``: [ID]; ``rename``: [TITLE] (as typed); ``fork``/``revert``: [] or [MSG_ID];
    ``export``: [] or [FORMAT]; ``verify``: [--with-agent] [NOTEBOOK]; ``fix``: [CELL] or [verify]."""


AgentCommand = Annotated[PromptCommand | SubCommand, Field(discriminator="kind")]


def _fail(problem: str) -> UsageError:
    return UsageError(f"{problem}\n\n{USAGE}")


def _skip_space(line: str, pos: int) -> int:
    while pos < len(line) and line[pos].isspace():
        pos += 1
    return pos


def _word(line: str, pos: int) -> tuple[str, int]:
    """One shell word starting at ``pos`` and the position after it (quotes honoured)."""
    stream = io.StringIO(line[pos:])
    lexer = shlex.shlex(stream, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        token = lexer.get_token()
    except ValueError as exc:
        raise _fail(f"Could not read the options: {exc}.") from None
    # shlex consumed the token and at most one whitespace character after it.
    return token or "", pos + stream.tell()


def _options(line: str) -> tuple[dict[str, object], str]:
    """The leading options and the raw text after them."""
    options: dict[str, object] = {}
    pos = _skip_space(line, 0)
    while line.startswith("--", pos):
        word, pos = _word(line, pos)
        name, eq, value = word.partition("=")
        if name == "--":
            break
        if name in _FLAGS and not eq:
            options[_FLAGS[name]] = True
        elif name in _VALUED:
            if not eq:
                pos = _skip_space(line, pos)
                if pos >= len(line) or line.startswith("--", pos):
                    raise _fail(f"{name} needs a value.")
                value, pos = _word(line, pos)
            if not value:
                raise _fail(f"{name} needs a value.")
            options[name[2:]] = value
        elif name in _FLAGS:
            raise _fail(f"{name} takes no value.")
        else:
            raise _fail(f"Unknown option {name}.")
        pos = _skip_space(line, pos)
    if options.get("cont") and ("new" in options or "session" in options):
        raise _fail("--continue goes with neither --new nor --session.")
    if "agent" in options and options["agent"] not in PROMPTABLE:
        raise _fail(f"Unknown agent {options['agent']!r}.")
    return options, line[pos:].strip()


def _unquote(text: str) -> str:
    """``"explain this"`` → ``explain this``; anything else is kept as typed."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        try:
            words = shlex.split(text)
        except ValueError:
            return text
        if len(words) == 1:
            return words[0]
    return text


def _subcommand(rest: str) -> SubCommand | None:
    """``rest`` as a subcommand, or None when it reads as a prompt."""
    head, *more = re.split(r"\s+", rest, maxsplit=1)
    name, tail = head, (more[0].strip() if more else "")
    if name not in SUBCOMMANDS:
        return None
    if name == "rename":
        if not tail:
            raise _fail("rename needs a title: %agent rename NEW TITLE")
        return SubCommand(name=name, args=[_unquote(tail)])
    try:
        words = shlex.split(tail)
    except ValueError:
        return None
    if name in _NO_ARGS:
        return SubCommand(name=name) if not words else None
    if name == "config":  # `%agent config model`: the settings whose key starts so
        return SubCommand(name=name, args=words) if len(words) <= 1 else None
    if name in ("switch", "delete"):
        if not words:
            raise _fail(f"{name} needs a session ID (see %agent sessions).")
        return SubCommand(name=name, args=words) if len(words) == 1 else None
    if name in ("fork", "revert"):
        if not words:
            return SubCommand(name=name)
        ok = len(words) == 1 and _MESSAGE_ID.match(words[0])
        return SubCommand(name=name, args=words) if ok else None
    if name == "fix":  # `%agent fix 3` / `fix [3]` / `fix <cell id>`; `%agent fix it please` is a prompt
        if not words:
            return SubCommand(name=name)
        one = len(words) == 1 and (_CELL_REF.match(words[0]) or words[0] == "verify")
        return SubCommand(name=name, args=words) if one else None
    if name == "verify":
        return _verify(words)
    if name == "hidden":  # `%agent hidden gems in the data` is a prompt
        return SubCommand(name=name) if not words else None
    if name == "complete":  # `%agent complete the function below` is a prompt
        switch = not words or (len(words) == 1 and words[0].lower() in ("on", "off"))
        return SubCommand(name=name, args=[w.lower() for w in words]) if switch else None
    if name == "mcp":
        listing = not words or (words[0] == "restart" and len(words) <= 2)
        return SubCommand(name=name, args=words) if listing else None
    return _export(words)


def _verify(words: list[str]) -> SubCommand | None:
    """``%agent verify [--with-agent] [--kernel NAME] [NOTEBOOK.ipynb]``; ``%agent verify the
    totals`` is a prompt. Args come back as ``[--with-agent] [--kernel=NAME] [NOTEBOOK]``."""
    flags: list[str] = []
    rest: list[str] = []
    words = list(words)
    while words:
        word = words.pop(0)
        if word == "--with-agent":
            flags.append(word)
        elif word == "--kernel" or word.startswith("--kernel="):
            name = word.partition("=")[2] or (words.pop(0) if words else "")
            if not name or name.startswith("--"):
                raise _fail("--kernel needs a kernelspec name (jupyter kernelspec list).")
            flags.append(f"--kernel={name}")
        elif word.startswith("--"):
            raise _fail(f"Unknown verify option {word} (--with-agent, --kernel NAME).")
        else:
            rest.append(word)
    if len(rest) > 1 or (rest and not rest[0].lower().endswith(".ipynb")):
        return None
    return SubCommand(name="verify", args=[*dict.fromkeys(flags), *rest])


def _export(words: list[str]) -> SubCommand | None:
    if not words:
        return SubCommand(name="export")
    if not words[0].startswith("--"):
        return None
    name, eq, value = words[0].partition("=")
    if name != "--format":
        raise _fail(f"Unknown export option {name}.")
    rest = words[1:]
    if not eq:
        value, rest = (rest[0], rest[1:]) if rest else ("", [])
    if value not in EXPORT_FORMATS:
        raise _fail(f"--format must be one of {', '.join(EXPORT_FORMATS)} (got {value!r}).")
    if rest:
        raise _fail(f"Unexpected arguments after the export format: {' '.join(rest)}")
    return SubCommand(name="export", args=[value])


def parse(line: str, cell: str | None = None) -> PromptCommand | SubCommand:
    """Parse a ``%agent`` line, or a ``%%agent`` first line plus the cell body (the prompt)."""
    options, rest = _options(line)
    if cell is not None:
        if rest:
            raise _fail("In %%agent the first line takes only options; write the prompt in the cell.")
        prompt = cell.strip()
    else:
        if not options:
            sub = _subcommand(rest)
            if sub is not None:
                return sub
        prompt = _unquote(rest)
    if not prompt:
        raise _fail("No prompt given.")
    return PromptCommand(prompt=prompt, **options)
