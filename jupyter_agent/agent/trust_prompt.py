"""Before a prompt: configuration files that are new or changed since the user trusted them.

The loader leaves such a file out (``trust.py``, ``Config.untrusted``). A front end that
can ask shows, for each, what it would change with Trust / Ignore (a permission box for
``trust_config``); the answer is recorded and the configuration read again, so the prompt
runs with what the user decided. A run that cannot ask stops with one line naming
``jupyter-agent trust PATH``: nothing runs with part of a configuration the user meant.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from jupyter_agent import trust
from jupyter_agent.agent.compose import reconfigure
from jupyter_agent.agent.ports import PermissionContext
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion

if TYPE_CHECKING:
    from jupyter_agent.agent.runtime import Runtime

TRUST_PERMISSION = "trust_config"
"""The permission the Trust / Ignore box answers (the widget shows those two buttons for it)."""
CONTAINED = (
    "A contained kernel cannot record trust (the code it runs must not vouch for a file): "
    "run that command in a terminal, then send the prompt again."
)
ROUNDS = 3
"""A file that changes again while the user decides is asked about again, this often."""


class UntrustedConfig(UsageFailure):
    """A configuration file is not trusted and this run cannot ask: the line says what to run."""


def refusal(runtime: Runtime) -> str | None:
    """The one line a run that cannot ask stops with, or None when everything is trusted."""
    pending = runtime.config.untrusted
    return pending[0].refusal() if pending else None


async def settle(runtime: Runtime, session_id: str, agent: str, handle: RunHandle) -> None:
    """Ask Trust / Ignore for each untrusted file (or refuse without a user), record the
    answers and read the configuration again. Stop ends the question like a run."""
    for _ in range(ROUNDS):
        pending = runtime.config.untrusted
        if not pending:
            return
        if not handle.interactive:
            raise UntrustedConfig(pending[0].refusal())
        if runtime.services.kernel == "contained":
            raise UntrustedConfig(f"{pending[0].refusal()} {CONTAINED}")
        with runtime.runner.asking(session_id, handle):
            for item in pending:
                decision = await _ask(runtime, session_id, agent, item, handle)
                try:
                    trust.record(item.path, item.sha256, decision)
                except OSError as exc:
                    raise UntrustedConfig(
                        f"Your answer about {item.path} could not be recorded ({exc.strerror or exc}); "
                        f"run `jupyter-agent trust {item.path}` in a terminal."
                    ) from None
        reconfigure(runtime, runtime.config.reloaded())
    if runtime.config.untrusted:
        raise UntrustedConfig(runtime.config.untrusted[0].refusal())


async def _ask(
    runtime: Runtime, session_id: str, agent: str, item: trust.Pending, handle: RunHandle
) -> trust.Decision:
    who = PermissionContext(session_id=session_id, agent=agent, interactive=True)
    question = PermissionQuestion(
        TRUST_PERMISSION,
        [str(item.path)],
        item.title(),
        {"path": str(item.path), "changes": list(item.changes)},
        default="allow",  # only a rule naming trust_config answers it (not a catch-all "*")
        always_ask=True,
        exact=True,
    )
    try:
        await runtime.permissions.ask(who, question)
    except PermissionDenied:
        if handle.abort.is_set():
            raise asyncio.CancelledError from None
        return "ignore"
    return "trust"
