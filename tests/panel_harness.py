"""The side panel's kernel end in this process: a ``PanelConnection`` on a comm that records
what it sends, over a ``KernelAgent`` whose runtime talks to the in-process scripted model.

The panel's state is decided in Python from the run's events; the wire messages it sends
are what the browser renders. These tests read that stream, as the browser would, without
a kernel or a browser (the browser tests keep what only a browser can show).
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.kernel.agent import KernelAgent
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.panel import PanelConnection


class Comm:
    """What ``PanelConnection`` needs of an ipykernel comm; keeps what was sent."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def on_msg(self, _fn: Any) -> None: ...

    def on_close(self, _fn: Any) -> None: ...

    def send(self, data: dict[str, Any]) -> None:
        self.sent.append(data)


class Panel:
    """One open panel: ``request`` as the browser sends, ``seen`` what it was sent."""

    def __init__(self, agent: KernelAgent) -> None:
        self.comm = Comm()
        self.agent = agent
        self.connection = PanelConnection(self.comm, agent)
        self.connection.open(wire.HelloRequest())

    @property
    def seen(self) -> list[dict[str, Any]]:
        return self.comm.sent

    def request(self, **data: Any) -> None:
        self.connection.handle(wire.PanelRequestAdapter.validate_python(data))

    def last(self, kind: str, since: int = 0) -> dict[str, Any] | None:
        return next((m for m in reversed(self.seen[since:]) if m.get("kind") == kind), None)

    def all(self, kind: str, since: int = 0) -> list[dict[str, Any]]:
        return [m for m in self.seen[since:] if m.get("kind") == kind]

    async def settle(self) -> None:
        """Let what the panel started in the background finish (runs, setup answers)."""
        pending = self.agent.tasks | self.connection.settings._tasks
        while pending:
            with contextlib.suppress(BaseException):  # a stopped run: its end is what the test reads
                await next(iter(pending))
            pending = self.agent.tasks | self.connection.settings._tasks


def kernel_agent(folder: Path, client: Any, *, configured: bool = True, **config: Any) -> KernelAgent:
    """A kernel's agent over ``folder`` (with a live front end: the panel's runs go in the
    background) whose runtime talks to ``client`` (``configured=False``: no model set yet)."""
    shell = SimpleNamespace(user_ns={}, events=None, transform_cell=lambda source: source)
    agent = KernelAgent(shell)
    agent.headless = lambda: False  # type: ignore[method-assign]
    settings = {"model": client.model, "api_base": client.base_url, **config} if configured else config
    loaded = load_config(folder, settings, env={}, global_dir=folder / "no-global")
    agent._runtime = build_runtime(
        config=loaded,
        store=SqliteStore.for_directory(folder),
        project_root=folder,
        working_dir=folder,
        notebook_path=str(folder / "analysis.ipynb"),
        client=client,
    )
    return agent
