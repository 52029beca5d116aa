"""``%agent verify [--with-agent] [NOTEBOOK]`` and ``%agent hidden``.

``verify`` blocks its cell while the saved notebook runs in a fresh kernel; one output
shows the progress and is then replaced by the table (``kernel/verification.py``). The
notebook's interrupt button stops it: the verification kernel is shut down and the cell
raises one line, so a Run All stops there too.
"""

from __future__ import annotations

import os
from pathlib import Path

from IPython.display import display

from jupyter_agent.kernel.agent import KernelAgent
from jupyter_agent.kernel.verification import VerifyStopped, report_bundle, verify_blocking
from jupyter_agent.magics.outcome import AgentRunError
from jupyter_agent.repro.runner import VerifySettings, kernel_name, read_notebook
from jupyter_agent.tools.notebook_path import frontend_attached
from jupyter_agent.ui.hidden_marker import CONSEQUENCE

NO_NOTEBOOK = "No notebook is known for this kernel: name one, %agent verify NOTEBOOK.ipynb."


def verify_command(agent: KernelAgent, args: list[str]) -> None:
    with_agent = "--with-agent" in args
    kernel = next((a.partition("=")[2] for a in args if a.startswith("--kernel=")), None)
    named = next((a for a in args if not a.startswith("--")), None)
    notebook = Path(named).expanduser().resolve() if named else agent.notebook_path()
    if notebook is None:
        print(NO_NOTEBOOK)
        return
    nb = read_notebook(notebook)  # a wrong path or a broken file: one line, before any kernel starts
    kernel_name(nb, VerifySettings(kernel=kernel))
    saved = ""
    if named is None and frontend_attached(agent.shell.user_ns, os.environ):
        saved = " (the saved file: save the notebook first to include your latest edits)"
    title = f"Verifying {notebook.name}{saved}"
    handle = display({"text/plain": f"{title}…"}, raw=True, display_id=True)

    def progress(text: str) -> None:
        if handle is not None:
            handle.update({"text/plain": f"{title}: {text}"}, raw=True)

    try:
        report = verify_blocking(agent, notebook, with_agent=with_agent, kernel=kernel, progress=progress)
    except VerifyStopped as exc:
        progress(str(exc))
        raise AgentRunError(str(exc)) from None
    data, metadata = report_bundle(report)
    if handle is not None:
        handle.update(data, metadata=metadata, raw=True)
    else:
        display(data, metadata=metadata, raw=True)


def hidden_command(agent: KernelAgent) -> None:
    state = agent.hidden.hidden()
    if not state:
        print("No hidden state: every name the agent's code set was set by a cell since (or added as one).")
        return
    print(f"{state.sentence()} {CONSEQUENCE}")
    code = state.code()
    if code:
        print('\nThe code that set it, in order ("Add as cell" on the run\'s marker inserts it):\n')
        print(code)
