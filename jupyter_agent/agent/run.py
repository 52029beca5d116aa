"""One run of a session: what belongs to it alone, created by whoever starts it.

A ``%%agent --wait`` cell and a side-panel prompt may run at the same time; each carries
its own handle, so one never changes how the other asks for permission, where its
notebook edits go, or what Stop aborts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from jupyter_agent.tools.services import NotebookBridge


@dataclass
class RunHandle:
    """Per-run state: interactive or not, the abort signal, the notebook bridge."""

    interactive: bool = False
    """A user watches (widget or panel) and can answer permission questions."""
    bridge: NotebookBridge | None = None
    """Where notebook edits go live: the side panel that started the run (for a cell, the one
    that greeted last); a panel that closes lets go of it and the next one to greet takes over."""
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by Stop (or a kernel interrupt): the model stream and running tools end."""

    def child(self) -> RunHandle:
        """A sub-agent's run: asks and edits like its parent, stopped with it (cancellation)."""
        return RunHandle(interactive=self.interactive, bridge=self.bridge)
