"""jupyter-agent: a coding and data agent that lives in the Jupyter kernel.

Importing this package is cheap: litellm (≈2 s) is imported only when a model is
first called, so ``%load_ext jupyter_agent`` stays fast.
"""

from __future__ import annotations

__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """``%load_ext jupyter_agent``: register the magics and warm litellm in the background."""
    from jupyter_agent.magics.kernel import warm_litellm
    from jupyter_agent.magics.magics import AgentMagics
    from jupyter_agent.magics.transform import install

    ipython.register_magics(AgentMagics(ipython))  # type: ignore[attr-defined]
    install(ipython)
    warm_litellm()


def unload_ipython_extension(ipython: object) -> None:
    """Nothing to undo: magics stay registered until the kernel restarts."""
