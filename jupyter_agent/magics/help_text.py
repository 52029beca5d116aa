"""What ``%agent?``, ``%%agent?`` and ``%compact?`` show, and the usage a bad line prints.

Plain strings only: ``%load_ext`` imports this module (the magics' docstrings), so it must
not pull in pydantic or the agent definitions. ``tests/magics/test_help.py`` checks that the
agents and options listed here are the ones the parser accepts.
"""

from __future__ import annotations

AGENTS = ("build", "plan", "fix", "explore", "general")
"""The agents a prompt may go to (``agent/agents.py`` PROMPTABLE, in its order)."""

SUBCOMMANDS = {
    "sessions": ("", "list this notebook's sessions"),
    "new": ("", "start a fresh session"),
    "switch": ("ID", "switch to session ID"),
    "rename": ("TITLE…", "rename the current session"),
    "delete": ("ID", "delete session ID and its sub-agent sessions"),
    "config": ("", "show the effective configuration (keys redacted)"),
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

MENTIONS = """In a prompt: @var_name, @cell:N or @cell:ID, @file:path add that context;
a leading @explore or @general runs the prompt as a subtask of that agent."""

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

UNATTENDED = """Running unattended (papermill, jupyter nbconvert --execute, nbclient, or --wait):
the cell blocks until the run ends; a run that fails, is stopped, or hits its step
limit or budget raises AgentRunError so the notebook run stops and exits non-zero
(--no-raise, or "raise_on_failure": false in jupyter-agent.json, shows the error and
goes on). A kernel with no live front end starts a fresh session on its first prompt
(--continue, --session ID, or "headless_session": "continue" keep an old one)."""

AGENT_LINE = f"""Ask the notebook's agent, or manage its sessions.

The agent runs in this kernel: it sees your variables, runs Python here, reads and edits
the notebook's cells and files, and streams its work below the cell. A bare `%agent ?`
shows this help; it is never sent to a model.

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

The first line takes options only; the rest of the cell is the prompt, kept as typed.
A body of just `?` shows this help; it is never sent to a model.

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

COMPACT = """Summarise the session now, so a long conversation fits the model's window again.

  %compact                 the notebook's current session
  %compact SESSION_ID      that session of this notebook (it becomes the current one;
                           see %agent sessions)

The history up to here is replaced, for the model, by an anchored summary (what was asked,
what was done, what is next); everything stays in the store and in the cells. The gauge
before and after is printed. The agent also compacts by itself when the window fills up
("compaction": {"auto": false} in jupyter-agent.json turns that off).
"""

HELP_WORDS = ("?", "??")
"""A line or cell body that asks for help, never a prompt."""
