"""Background warm-up after ``%load_ext``: the first prompt should cost what a warm one does.

A cold first prompt spends seconds importing litellm, the widget stack and the agent,
and loading the tokenizer. A daemon thread does that work right after ``%load_ext``
returns, in the order the first prompt needs it. A prompt that arrives early (Run All)
does its own work meanwhile (the agent, its widget, the session) and then awaits the
model client (:func:`model_client`) off the event loop, showing that it waits; it never
waits for work done twice. Only imports and read-only caches happen here: no store is
opened, no session touched, so nothing races with the user's first cell.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

MODULES = (
    "jupyter_agent.providers.litellm_client",
    "jupyter_agent.providers.models",
    "jupyter_agent.providers.inline_client",
    "jupyter_agent.agent.compose",
    "jupyter_agent.agent.recovery",
    "jupyter_agent.agent.revert",
    "jupyter_agent.agent.send",
    "jupyter_agent.agent.system_prompt",
    "jupyter_agent.agent.title",
    "jupyter_agent.context.system",
    "jupyter_agent.tools.registry",
    "jupyter_agent.storage.sqlite_store",
    "jupyter_agent.storage.spill",
    "jupyter_agent.config",
    "jupyter_agent.cli",
    "jupyter_agent.failures",
    "jupyter_agent.kernel.mentions",
    "jupyter_agent.magics.parser",
    "jupyter_agent.magics.subcommands",
    "jupyter_agent.ui.widget",
    "jupyter_agent.ui.render",
)
LITELLM_LATE = ("litellm._service_logger", "litellm.integrations.prometheus_services")
"""Imported by litellm on the first real request only (a mock call skips them)."""
_started = threading.Event()
_yield = threading.Event()
done = threading.Event()
"""Set when the warm-up finished or gave way (benchmarks and tests wait on it)."""
client = threading.Event()
"""Set when the model client is loaded (litellm and its first request's imports), or the
warm-up could not load it (then whoever needs it loads it)."""


def _steps() -> list[Callable[[], object]]:
    """The first prompt's slow work after the model client, in the order it needs it."""
    steps: list[Callable[[], object]] = [functools.partial(importlib.import_module, name) for name in MODULES]
    steps += [_tokenizer, _tool_schemas, lambda: asyncio.run(_mock_stream()), _litellm_late]
    return steps


def _client() -> None:
    """The long pole (litellm, ~2-5 s): never given way, a prompt waits for it anyway."""
    # the warm-up's own work: these imports run in its thread, not at %load_ext
    from jupyter_agent.providers import litellm_client

    try:
        litellm_client.warm_up()
    finally:
        client.set()


def client_ready() -> bool:
    """The model client is loaded: a prompt can call it without waiting for an import."""
    # the providers load litellm lazily; this module is imported by %load_ext
    from jupyter_agent.providers import litellm_client

    return litellm_client.imported() and (client.is_set() or not _started.is_set())


_loading: asyncio.Future[None] | None = None
"""The one wait for the model client that every cell shares (see ``model_client``)."""


async def model_client() -> None:
    """Wait for the model client in a thread (the warm-up's import, or our own when it could
    not): the event loop stays free, so the notebook, the widget and Stop keep working.
    Cells share one wait and resume in the order they asked (Run All's cells run in order);
    cancelling a caller (its Stop) ends only that caller's wait."""
    global _loading
    # the providers load litellm lazily; this module is imported by %load_ext
    from jupyter_agent.providers import litellm_client

    def load() -> None:
        if _started.is_set():
            client.wait()
        litellm_client.litellm()

    loop = asyncio.get_running_loop()
    shared = _loading
    if (
        shared is None
        or shared.get_loop() is not loop
        or (shared.done() and (shared.cancelled() or shared.exception()))
    ):
        shared = _loading = asyncio.ensure_future(asyncio.to_thread(load))
    await asyncio.shield(shared)


def _tokenizer() -> None:
    # the warm-up's own work: these imports run in its thread, not at %load_ext
    from jupyter_agent.context import tokens

    tokens.count_tokens("warm")  # loads the tiktoken encoding from litellm's files


def _tool_schemas() -> None:
    # the warm-up's own work: these imports run in its thread, not at %load_ext
    from jupyter_agent.tools.registry import default_registry, register_kernel_tools

    registry = default_registry()
    register_kernel_tools(registry)
    registry.specs()  # tool schemas are cached per class


def _litellm_late() -> None:
    for name in LITELLM_LATE:
        with contextlib.suppress(ImportError):  # internal names; a litellm upgrade may move them
            importlib.import_module(name)


def _work() -> None:
    try:
        _client()
        for step in _steps():
            if _yield.is_set():
                break
            step()
    except Exception:  # a failed warm-up only means the first prompt does the work
        log.debug("warm-up failed", exc_info=True)
    finally:
        client.set()
        done.set()


def give_way() -> None:
    """A prompt started: stop after the current step, so the two threads do not share the GIL
    on work the prompt does anyway (it waits on the import lock only for the module in hand)."""
    _yield.set()


async def _mock_stream() -> None:
    """One offline streamed completion: litellm imports most of its call path on first use."""
    # the warm-up's own work: these imports run in its thread, not at %load_ext
    from jupyter_agent.providers.litellm_client import litellm

    response = await litellm().acompletion(
        model="openai/warm-up",
        messages=[{"role": "user", "content": "warm up"}],
        mock_response="ok",
        stream=True,
        api_key="warm-up",
    )
    async for _ in response:
        pass


def start() -> None:
    """Start the warm-up thread once per process (``%load_ext`` may run again)."""
    if _started.is_set():
        return
    _started.set()
    threading.Thread(target=_work, name="jupyter-agent-warmup", daemon=True).start()
