"""The side panel's settings and setup views, on the kernel's side.

Settings: each effective key with where it came from (what ``%agent config`` prints).
Setup: litellm's providers and models, a one-token Test connection and Save
(``agent/setup.py``); saved settings apply from the next prompt, no restart. Each answer
that needs litellm waits for it off the kernel's loop (the warm-up may still import it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from jupyter_agent.agent import setup
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.kernel import warmup
from jupyter_agent.ui import settings_protocol as sp

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent

log = logging.getLogger(__name__)


def settings_message(agent: KernelAgent) -> sp.SettingsMsg:
    """The effective settings with their origins, and the key's state."""
    runtime = agent.refresh(force=True)
    config = runtime.config
    try:
        model: str | None = runtime.model_name()
    except JupyterAgentError:
        model = None
    rows = [sp.SettingView(**row.model_dump()) for row in config.show_origin()]
    return sp.SettingsMsg(
        model=model, key=setup.key_status(config, model), settings=rows, sources=list(config.sources)
    )


class PanelSettings:
    """Answers the settings and setup requests of one panel connection."""

    def __init__(self, agent: KernelAgent, send: Callable[[Any], None], greet: Callable[[], None]) -> None:
        self.agent = agent
        self._send = send
        self._greet = greet
        self._tasks: set[asyncio.Task[None]] = set()

    def handle(self, request: sp.SettingsRequest | sp.SetupRequest) -> None:
        task = asyncio.ensure_future(self._answer(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: sp.SettingsRequest | sp.SetupRequest) -> None:
        await warmup.model_client()  # the lists, the key check and the test need litellm
        if isinstance(request, sp.SettingsRequest):
            self._send(settings_message(self.agent))
            return
        try:
            reply = await self._setup(request)
        except JupyterAgentError as exc:
            reply = sp.SetupMsg(action=request.action, ok=False, text=exc.for_user())
        except Exception as exc:  # a failing request must not kill the comm
            log.exception("setup request failed")
            reply = sp.SetupMsg(action=request.action, ok=False, text=f"{type(exc).__name__}: {exc}")
        self._send(reply)
        if request.action == "save" and reply.ok:
            self._greet()  # the model and the problem as they are now: the setup view closes

    async def _setup(self, request: sp.SetupRequest) -> sp.SetupMsg:
        runtime = self.agent.refresh()
        config = runtime.config
        if request.action == "providers":
            start = setup.current(config)
            return sp.SetupMsg(
                action="providers",
                providers=setup.providers(),
                provider=start.provider,
                model=start.model,
                api_base=start.api_base,
                models=setup.models(start.provider),
            )
        if request.action == "models":
            return sp.SetupMsg(
                action="models", provider=request.provider, models=setup.models(request.provider)
            )
        choice = setup.Choice(
            request.provider, request.model, request.api_base, request.api_key.get_secret_value()
        ).checked()
        if request.action == "test":
            text = await runtime.test_model(choice)
            return sp.SetupMsg(action="test", text=text, model=choice.model, key_name=choice.key_name)
        text = setup.save(choice, config)
        self.agent.refresh(force=True)
        return sp.SetupMsg(action="save", text=text, model=choice.model, key_name=choice.key_name)
