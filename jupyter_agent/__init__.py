"""jupyter-agent: a coding and data agent that lives in the Jupyter kernel.

Importing this package is cheap: litellm (≈2 s) is imported only when a model is
first called, so ``%load_ext jupyter_agent`` stays fast.
"""

from __future__ import annotations

import sys

if sys.platform == "win32":  # the sandbox, process groups, fcntl locks and signals are POSIX
    raise ImportError(
        "jupyter-agent runs on Linux and macOS only for now (not Windows); on Windows, use it in WSL 2."
    )

__version__ = "0.1.0"


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where JupyterLab finds the prebuilt side panel (``jupyter labextension develop``)."""
    return [{"src": "labextension", "dest": "jupyter-agent"}]


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext jupyter_agent``: register the magics and warm up in the background."""
    # imported on %load_ext, so `import jupyter_agent` (and the CLI's --version) stays cheap
    from jupyter_agent.kernel import cell_completion, warmup
    from jupyter_agent.magics.magics import AgentMagics
    from jupyter_agent.magics.transform import install
    from jupyter_agent.ui.comm_target import register

    magics = AgentMagics(ipython)
    ipython.register_magics(magics)  # type: ignore[attr-defined]
    install(ipython)
    register(magics.agent)
    cell_completion.install(ipython, magics.agent)  # Tab after @ or / in %agent cells
    ipython.events.register("post_run_cell", magics.agent.after_cell)  # type: ignore[attr-defined]
    warmup.start()


def unload_ipython_extension(ipython: object) -> None:
    """Nothing to undo: magics stay registered until the kernel restarts."""
