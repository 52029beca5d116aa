"""What a headless ``run`` checks before it creates anything (store, session, folders).

A bad value is refused with one line naming the flag or key, and exit code 2; a run
that would fail later must not leave an empty session or a ``.jupyter-agent/`` behind.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from jupyter_agent.agent.workspace import NO_MODEL_CLI
from jupyter_agent.config import ConfigError, load_config
from jupyter_agent.core import unicode
from jupyter_agent.core.agents import runnable_agent


def missing_folder(flag: str, folder: Path) -> str:
    """The one sentence for a ``--notebook`` whose folder is missing (``run`` and the others)."""
    return (
        f"--notebook {flag}: the folder {folder} does not exist. "
        "Create it first or point --notebook at an existing folder."
    )


def run_problem(args: argparse.Namespace) -> str | None:
    """Why ``jupyter-agent run`` cannot start with these arguments, or None."""
    if not str(args.prompt or "").strip():
        return 'error: the prompt is empty. Give the text to send, e.g. jupyter-agent run "summarise x.csv"'
    bad = unicode.problem(args.prompt)
    if bad is not None:
        return f"error: {bad}."
    if args.model is not None and not args.model.strip():
        return (
            "error: --model is empty. Give a model such as anthropic/claude-sonnet-4-5, or leave "
            "the flag out to use the configured one."
        )
    try:
        runnable_agent(args.agent)
    except KeyError as exc:
        return f"error: --agent {args.agent}: {exc.args[0]}"
    folder = Path.cwd()
    if getattr(args, "notebook", None):
        notebook = Path(args.notebook).expanduser().resolve()
        if not notebook.parent.is_dir():
            return f"error: {missing_folder(args.notebook, notebook.parent)}"
        if notebook.is_dir():
            return f"error: --notebook {args.notebook} is a folder; give the path of a .ipynb file."
        folder = notebook.parent
    try:
        config = load_config(folder.resolve())
    except ConfigError as exc:
        return f"error: {exc}"
    if config.untrusted:  # before the model: the file left out may be what names it
        return f"error: {config.untrusted[0].refusal()}"
    agent = config.agent.get(args.agent)
    if not (args.model or (agent.model if agent else None) or config.model):
        return f"error: {NO_MODEL_CLI}"
    return None
