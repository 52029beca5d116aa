"""What ``%agent?``, ``%%agent?``, ``%compact?`` (and ``help``, ``-h``, ``--help``) show, and
the usage a bad line prints.

Plain strings only: ``%load_ext`` imports this module (the magics' docstrings), so it must
not pull in pydantic or the agent definitions. ``tests/magics/test_help.py`` checks that the
agents and options listed here are the ones the parser accepts. Prose is one line per
paragraph: a notebook wraps it to its own width (a text wrapped here at 90 columns re-wrapped
mid-line in a narrower output); only the usage tables keep their columns (``markdown``
shows them as code blocks).
"""

from __future__ import annotations

AGENTS = ("build", "plan", "fix", "explore", "general")
"""The agents a prompt may go to (``core/agents.py`` PROMPTABLE, in its order)."""

SUBCOMMANDS = {
    "sessions": ("", "list this notebook's sessions"),
    "new": ("", "start a fresh session"),
    "switch": ("ID", "switch to session ID"),
    "rename": ("TITLE…", "rename the current session"),
    "delete": ("ID", "delete session ID and its sub-agent sessions"),
    "config": ("[KEY]", "each effective setting and where it comes from (keys never shown)"),
    "stop": ("", "stop the running agent"),
    "fork": ("[MSG_ID]", "copy the session (up to MSG_ID) into a new session"),
    "revert": ("[MSG_ID]", "undo the agent's cells, files, variables from MSG_ID on (default: last prompt)"),
    "unrevert": ("", "undo the last revert (until the next prompt)"),
    "export": ("[--format F]", "export the session as json, md or ipynb"),
    "mcp": ("[restart [NAME]]", "list MCP servers, their state and tools; restart them"),
    "fix": ("[CELL]", "fix the latest cell that raised (or In [CELL], a cell id) with the agent"),
    "verify": (
        "[OPTIONS] [NB]",
        "run the saved notebook in a fresh kernel, compare (--with-agent, --kernel K)",
    ),
    "hidden": ("", "state the agent's code set that no cell reproduces, and that code"),
    "complete": ("[on|off]", "inline completion in cells: show whether it is on, or turn it on/off"),
}

OPTIONS = (
    ("--model M", "use model M (a litellm model string, e.g. openai/gpt-5)"),
    ("--agent NAME", " | ".join(AGENTS) + " (default build)"),
    ("--new", "start a fresh session"),
    ("--continue", "continue the notebook's latest session (a headless kernel starts a fresh one)"),
    ("--session ID", "use session ID"),
    ("--wait", "block until the agent is done"),
    ("--no-raise", "a blocking run that fails shows the error and the notebook goes on"),
)

MENTIONS = (
    "In a prompt: @var_name, @cell:N or @cell:ID, @file:path add that context; "
    "a leading @explore or @general runs the prompt as a subtask of that agent."
)

USAGE = (
    """Usage:
  %agent [options] PROMPT          send PROMPT to the notebook's current session
  %%agent [options]                the cell body is the prompt (first line: options only)
  %agent SUBCOMMAND [ARGS]         manage sessions (below)

Options (only before the prompt; `--` ends them):
"""
    + "\n".join(f"  {flag:<16} {text}" for flag, text in OPTIONS)
    + "\n\nSubcommands:\n"
    + "\n".join(f"  %agent {name + ' ' + form:<22} {text}" for name, (form, text) in SUBCOMMANDS.items())
    + """
  %compact [SESSION_ID]         summarise the current session now

"""
    + MENTIONS
)

UNATTENDED = (
    "Running unattended (papermill, jupyter nbconvert --execute, nbclient, or --wait): the cell "
    "blocks until the run ends; a run that fails, is stopped, or hits its step limit or budget "
    "raises AgentRunError so the notebook run stops and exits non-zero (--no-raise, or "
    '"raise_on_failure": false in jupyter-agent.json, shows the error and goes on). A kernel with '
    "no live front end starts a fresh session on its first prompt (--continue, --session ID, or "
    '"headless_session": "continue" keep an old one).'
)

_LINE_INTRO = (
    "The agent runs in this kernel: it sees your variables, runs Python here, reads and edits the "
    "notebook's cells and files, and streams its work below the cell. `%agent ?`, `%agent help`, "
    "`%agent -h` and `%agent --help` show this help; they are never sent to a model."
)
_CELL_INTRO = (
    "The first line takes options only; the rest of the cell is the prompt, kept as typed. "
    "`%%agent --help` (or a body of just `?`) shows this help; it is never sent to a model."
)

AGENT_LINE = f"""Ask the notebook's agent, or manage its sessions.

{_LINE_INTRO}

{USAGE}

{UNATTENDED}

Examples:
  %agent load sales.csv into a DataFrame and plot revenue by month
  %agent --agent plan how should I clean the date column of @df?
  %agent sessions
"""

AGENT_CELL = (
    """Send the cell body to the notebook's agent as one prompt.

  %%agent [options]
  PROMPT (any number of lines; @mentions work here too)

"""
    + _CELL_INTRO
    + """

Options:
"""
    + "\n".join(f"  {flag:<16} {text}" for flag, text in OPTIONS)
    + f"""

{MENTIONS}

{UNATTENDED}

Example:
  %%agent --agent plan
  Look at `df` and suggest how to clean the date column. Don't change anything yet.

Sessions are managed with the line magic: %agent sessions | new | switch ID | … (%agent?).
"""
)

_COMPACT_BODY = (
    "The history up to here is replaced, for the model, by an anchored summary (what was asked, "
    "what was done, what is next); everything stays in the store and in the cells. The gauge before "
    "and after is printed. The agent also compacts by itself when the window fills up "
    '("compaction": {"auto": false} in jupyter-agent.json turns that off).'
)
COMPACT = (
    """Summarise the session now, so a long conversation fits the model's window again.

  %compact                 the notebook's current session
  %compact SESSION_ID      that session of this notebook (it becomes the current one)
  %compact --help          this help

"""
    + _COMPACT_BODY
    + "\n"
)

HELP_WORDS = ("?", "??", "help", "-h", "--help")
"""A ``%agent`` or ``%compact`` line that asks for help, never a prompt (nor a session)."""
CELL_HELP_WORDS = ("?", "??")
"""A ``%%agent`` body that asks for help (a body of ``help`` is a prompt like any other)."""


def markdown(text: str) -> str:
    """``text`` as Markdown: prose paragraphs as they are (the notebook wraps them), runs of
    indented lines (usage, examples) as code blocks that keep their columns."""
    out: list[str] = []
    code: list[str] = []
    for line in text.splitlines():
        if line.startswith("  "):
            code.append(line)
            continue
        if code:
            out.extend(["```text", *code, "```"])
            code = []
        out.append(line)
    if code:
        out.extend(["```text", *code, "```"])
    return "\n".join(out)


def bundle(text: str) -> dict[str, str]:
    """What a help display carries: Markdown for notebooks, the text for consoles and logs."""
    return {"text/markdown": markdown(text), "text/plain": text}
