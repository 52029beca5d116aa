"""Send a prompt: the one path the magics, the side panel and the CLI take to run one.

Configuration the user has not trusted is settled first (Trust / Ignore, or a one-line
refusal without a user: ``agent/trust_prompt.py``). The model is decided once here
(``Runtime.resolve_model``), its key checked, the notices a run owes the user shown (an
unknown window, a sandbox that cannot start, MCP servers that failed), then the runner
takes the prompt. Front ends only say how notices and the model's
window are shown, and how a failure is worded (``failures.explain``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from jupyter_agent.agent import trust_prompt
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.model import ResolvedModel

Level = Literal["info", "warn"]


class NotRunnable(UsageFailure):
    """The prompt cannot start (no API key for its model): the message says what to do."""


@dataclass(frozen=True)
class Prompt:
    """What a user sent, from any front end."""

    text: str
    session_id: str
    agent: str = "build"
    model: str | None = None
    """The model a flag or the panel's picker asked for (None: the configured one)."""
    handle: RunHandle | None = None
    """How the run asks for permission and edits the notebook (the front end's)."""
    instructions: str | None = None
    """Text for the model the views do not show (a fix's tool and cell id)."""
    typed: str | None = None
    """What the user typed, when ``text`` was built from it: read for MCP resources
    (``@server:uri``) and prompts (``/server:name``), never the mentions' own text."""


def problem(
    runtime: Runtime, model: str | None, agent: str = "build", *, cli: bool = False, keys: bool = True
) -> str | None:
    """Why a prompt cannot start now (no API key), before a session or message is written.

    Raises ``ConfigurationError`` when no model is configured at all; ``keys=False`` checks
    only that (the key check needs litellm, which Run All may still be importing: ``send``
    checks the key again)."""
    name = runtime.model_name(model, agent)
    return runtime.preflight(name, cli=cli) if keys else None


def later_notices(runtime: Runtime, session_id: str) -> list[str]:
    """Notices queued while the run went on (an MCP server that stopped), for a front end
    that shows them only at the end (the CLI)."""
    return runtime.take_notices(session_id, None)


async def send(
    runtime: Runtime,
    prompt: Prompt,
    notice: Callable[[str, Level], None],
    *,
    on_model: Callable[[ResolvedModel], None] | None = None,
    on_ready: Callable[[], None] | None = None,
    cli: bool = False,
) -> str:
    """Run ``prompt`` to the end; ``on_model`` learns the model (a gauge's window) first,
    ``on_ready`` is told when the MCP servers have started, just before the request.

    Raises ``NotRunnable``/``ConfigurationError`` before anything is written; a run's own
    failures are recorded in the session as usual."""
    handle = prompt.handle or RunHandle(interactive=runtime.runner.interactive)
    await trust_prompt.settle(runtime, prompt.session_id, prompt.agent, handle)
    model = runtime.resolve_model(prompt.model, prompt.agent)
    why = runtime.preflight(model.name, cli=cli)
    if why is not None:
        raise NotRunnable(why)
    if on_model is not None:
        on_model(model)
    for text in runtime.take_notices(prompt.session_id, model):
        notice(text, "info")
    await runtime.start_mcp()  # first prompt: MCP servers start, a failure is told before the request
    for text in runtime.take_notices(prompt.session_id, model):
        notice(text, "warn")
    text = prompt.text
    if prompt.typed is not None:  # servers are up: their resources and prompts can be used
        text = await runtime.expand_mcp(prompt.typed, prompt.text, prompt.agent)
    if on_ready is not None:
        on_ready()
    return await runtime.prompt(
        text,
        session_id=prompt.session_id,
        agent=prompt.agent,
        model=prompt.model,
        handle=prompt.handle,
        resolved=model,
        instructions=prompt.instructions,
    )
