"""Fix with agent: the prompt that hands a failed cell to the ``fix`` agent.

The agent gets the cell's source, its traceback and a summary of each variable the cell
names, each in its own fenced block (data, not instructions: ``core.fence``), and is asked
to replace that cell through ``notebook_edit`` and run it; the ``fix`` agent asks before
that edit, so the user approves the change first. The traceback is redacted and cut like
a tool's output (its end kept: that is where the error is).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from jupyter_agent.context.truncate import truncate_output
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.fence import fence
from jupyter_agent.core.redaction import redact
from jupyter_agent.kernel.cell_errors import CellError, CellErrors
from jupyter_agent.tools.python import strip_ansi
from jupyter_agent.tools.variables import summarize_variable

MAX_VARIABLES = 8
SKIP = frozenset({"In", "Out", "get_ipython", "exit", "quit", "display"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class NothingToFix(UsageFailure, ValueError):
    """No failed cell matches: the message says which and what to do."""


def named_variables(source: str, shell: Any) -> list[str]:
    """The user's variables ``source`` names, in order of appearance (not modules, functions,
    classes or IPython's own names)."""
    try:
        tree = ast.parse(shell.transform_cell(source))
        found_names = [n for n in ast.walk(tree) if isinstance(n, ast.Name)]
        names = [n.id for n in sorted(found_names, key=lambda n: (n.lineno, n.col_offset))]
    except (SyntaxError, ValueError, TypeError):  # the cell did not parse: that is the error
        names = _IDENT.findall(source)
    ns = shell.user_ns
    found: list[str] = []
    for name in dict.fromkeys(names):
        if name in SKIP or name.startswith("_") or name not in ns or hasattr(builtins, name):
            continue
        value = ns[name]
        if inspect.ismodule(value) or inspect.isroutine(value) or inspect.isclass(value):
            continue
        found.append(name)
    return found[:MAX_VARIABLES]


class FixPrompt(NamedTuple):
    words: str
    """What the user sees: ``Fix `In [14]`: ZeroDivisionError: division by zero``."""
    text: str
    """The user's message: the words, then the cell, the traceback and the variables as
    fenced blocks (shown as chips that open to what the agent got)."""
    instructions: str
    """For the model only (a hidden part): what to do and through which tool and cell id."""


def fix_prompt(error: CellError, shell: Any, save: Callable[[str], str]) -> FixPrompt:
    """The request in a line the user reads, the context as chips, the plumbing hidden."""
    label = f"`{error.label}`" if error.count is not None else f"cell `{error.label}`"
    target = (
        f'notebook_edit with action "replace", cell_id "{error.cell_id}" and run: true'
        if error.cell_id
        else "notebook_edit (notebook_read gives the cell ids) with action replace and run: true"
    )
    words = f"Fix {label}: {error.ename}: {_one_line(error.evalue)}".rstrip(": ")
    where = f" (id {error.cell_id})" if error.cell_id else ""
    instructions = (
        f"The cell {error.label}{where} raised {error.ename}. Explain the cause in a sentence or "
        f"two, then replace that cell with the corrected code using {target}. Change only that "
        "cell; if the fix needs something else (a missing file, a package), say so instead of editing."
    )
    trace = truncate_output(redact(strip_ansi(error.traceback)), direction="tail", save=save).content
    blocks = [
        fence("cell", error.source, ref=error.label),
        fence("traceback", trace, ref="traceback"),
    ]
    for name in named_variables(error.source, shell):
        try:
            summary = summarize_variable(name, shell.user_ns[name])
        except Exception as exc:  # a repr that raises must not stop the fix
            summary = f"{name}: could not be summarised ({type(exc).__name__})"
        blocks.append(fence("mention", summary, ref=f"@{name}"))
    # the words are echoed in the saved notebook too: a key in the error message stays out
    return FixPrompt(redact(words), redact(words + "\n\n" + "\n".join(blocks)), redact(instructions))


def _one_line(text: str, cap: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= cap else line[: cap - 1] + "…"


def find_error(errors: CellErrors, cell: str | None) -> CellError:
    """The failed cell to fix; :class:`NothingToFix` says why there is none."""
    found = errors.find(cell)
    if found is not None:
        return found
    if cell is None:
        raise NothingToFix(
            "No cell has raised an error since jupyter-agent was loaded in this kernel: "
            "run the cell that fails, then fix it (%agent fix, or Fix with agent on its error)."
        )
    raise NothingToFix(
        f"Cell {cell} has no error to fix (none since jupyter-agent was loaded): "
        "%agent fix alone fixes the latest cell that raised."
    )


def from_frontend(
    source: str, ename: str, evalue: str, traceback: list[str], count: int | None, cell_id: str | None
) -> CellError:
    """The error output the front end shows for a cell (its traceback lines carry ANSI colours)."""
    return CellError(
        source=source,
        ename=ename or "Error",
        evalue=evalue,
        traceback=strip_ansi("\n".join(traceback)) or f"{ename}: {evalue}",
        count=count,
        cell_id=cell_id or None,
    )
