"""Inline completion in this kernel: one suggestion in flight per front end, after a pause.

A front end asks on every change to the cell; each request replaces the one before it
(whose model call is cancelled, which closes its HTTP request). The model is asked only
once typing paused for ``completion.debounce_ms`` and no cell ran meanwhile. A request for
a markdown or raw cell, while completion is off, or while a cell runs is answered at once
with the reason and costs no model call. The context is built here, next to the
variables: the cell around the cursor, the live names it uses, the cells above.

Whether completion is on: ``%agent complete on|off`` (or the panel's toggle) for this
kernel, else ``completion.enabled``, else on whenever a model is configured; an
administrator who locks ``completion.enabled`` decides alone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from jupyter_agent.context.inline_context import CHARS_PER_TOKEN, fit
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.provider_errors import ProviderError
from jupyter_agent.core.redaction import redact
from jupyter_agent.kernel.event_loop import running_loop
from jupyter_agent.kernel.live_names import summarize

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent

log = logging.getLogger(__name__)
LOCKED = "completion.enabled"


@dataclass(frozen=True)
class InlineAsk:
    """What the front end sends: the cell around the cursor and the cells above it."""

    request_id: str
    prefix: str
    suffix: str
    cells_above: tuple[str, ...] = ()
    cell_type: str = "code"
    waited_ms: int = 0
    """The front end waited this long for the pause already: the kernel waits the rest."""


@dataclass(frozen=True)
class CompletionState:
    enabled: bool
    debounce_ms: int = 300
    reason: str = ""
    """Why completion is off (empty while on)."""
    context_chars: int = 8000
    """What a front end need send at most of the cell and of the cells above."""


class InlineSink(Protocol):
    """Where a request's suggestion goes (one front end's connection)."""

    def delta(self, request_id: str, text: str) -> None: ...
    def done(self, request_id: str, reason: str, message: str = "") -> None: ...


class InlineCompleter:
    """The kernel's inline completion: its on/off state and the requests in flight."""

    def __init__(self, agent: KernelAgent) -> None:
        self.agent = agent
        self.override: bool | None = None
        """``%agent complete on|off`` for this kernel (None: the configuration decides)."""
        self.executing = False
        """A cell runs now (an ``await`` in a cell lets requests through to here)."""
        self.last_error = ""
        """Why the latest suggestion failed (``%agent complete`` says it); empty after a success."""
        self.watchers: list[Callable[[CompletionState], None]] = []
        """Told when the state changes (the front ends' connections, the panels)."""
        self._told: CompletionState | None = None
        self._flight: dict[int, tuple[str, asyncio.Task[None]]] = {}
        events = getattr(agent.shell, "events", None)
        if events is not None:
            events.register("pre_run_cell", self._cell_starts)
            events.register("post_run_cell", self._cell_ends)

    # ------------------------------------------------------------ on / off

    def state(self) -> CompletionState:
        try:
            runtime = self.agent.refresh()
        except JupyterAgentError as exc:  # a broken file, a store that cannot be used
            return CompletionState(False, reason=exc.for_user())
        config = runtime.config
        debounce = config.completion.debounce_ms
        chars = config.completion.max_context_tokens * CHARS_PER_TOKEN
        if runtime.completion_model() is None:
            return CompletionState(False, debounce, "no model is configured", chars)
        locked = config.is_locked(LOCKED)
        wanted = config.completion.enabled if locked or self.override is None else self.override
        if wanted is False:
            why = f"turned off by the administrator ({config.admin_file})" if locked else "turned off"
            return CompletionState(False, debounce, why, chars)
        return CompletionState(True, debounce, "", chars)

    def set_enabled(self, on: bool) -> str:
        """``%agent complete on|off`` and the panel's toggle: one line saying what happened."""
        config = self.agent.refresh().config
        if config.is_locked(LOCKED):
            return (
                f"Inline completion is set by the administrator in {config.admin_file}; "
                "ask your administrator to change it."
            )
        self.override = on
        state = self.tell()
        if on and not state.enabled:
            return f"Inline completion stays off: {state.reason}."
        return f"Inline completion is {'on' if on else 'off'} in this kernel."

    def tell(self) -> CompletionState:
        """The state now; the watchers hear it when it changed (a switch, a settings file)."""
        state = self.state()
        if state != self._told:
            self._told = state
            for watcher in list(self.watchers):
                watcher(state)
        return state

    # ------------------------------------------------------------ requests

    def request(self, sink: InlineSink, ask: InlineAsk) -> None:
        """Start ``ask`` for ``sink``, replacing the sink's request in flight."""
        self.cancel(sink)
        refusal = self._refusal(ask)
        loop = running_loop()
        if refusal is None and loop is None:
            refusal = ("error", "this kernel has no running event loop")
        if refusal is not None:
            sink.done(ask.request_id, *refusal)
            return
        assert loop is not None
        count = getattr(self.agent.shell, "execution_count", 0)
        task = loop.create_task(self._complete(sink, ask, count))
        self._flight[id(sink)] = (ask.request_id, task)
        task.add_done_callback(lambda done: self._ended(sink, ask.request_id, done))

    def cancel(self, sink: InlineSink, request_id: str | None = None) -> None:
        """Stop the sink's request in flight (only ``request_id``, when given)."""
        current = self._flight.get(id(sink))
        if current is not None and (request_id is None or current[0] == request_id):
            current[1].cancel()

    def _ended(self, sink: InlineSink, request_id: str, task: asyncio.Task[None]) -> None:
        current = self._flight.get(id(sink))
        if current is not None and current[1] is task:
            del self._flight[id(sink)]
        if task.cancelled():  # also a task cancelled before it began: the front end hears it
            sink.done(request_id, "cancelled")

    def _refusal(self, ask: InlineAsk) -> tuple[str, str] | None:
        if ask.cell_type != "code":
            return ("skipped", f"no completion in {ask.cell_type} cells")
        if self.executing:
            return ("busy", "the kernel is running a cell")
        state = self.tell()
        if not state.enabled:
            return ("off", f"inline completion is off: {state.reason}")
        return None

    async def _complete(self, sink: InlineSink, ask: InlineAsk, count: int) -> None:
        rid = ask.request_id
        try:
            runtime = self.agent.runtime
            await asyncio.sleep(pause_s(runtime.config.completion.debounce_ms, ask.waited_ms))
            if self.executing or getattr(self.agent.shell, "execution_count", 0) != count:
                sink.done(rid, "stale", "a cell ran since the request")
                return
            shell = self.agent.shell
            names = summarize(ask.prefix, ask.suffix, shell.user_ns, getattr(shell, "user_ns_hidden", ()))
            budget = runtime.config.completion.max_context_tokens
            ctx = fit(ask.prefix, ask.suffix, names, ask.cells_above, budget)
            session_id = self.agent.current_session()
            async for text in runtime.complete_inline(ctx, session_id):
                sink.delta(rid, text)
            sink.done(rid, "done")
            self.last_error = ""
            self._spent(session_id)
        except (ProviderError, JupyterAgentError) as exc:
            self._failed(sink, rid, str(getattr(exc, "message", None) or exc))
        except Exception as exc:  # a suggestion is a nicety: never a traceback in the notebook
            log.exception("inline completion failed")
            self._failed(sink, rid, f"{type(exc).__name__}: {exc}")

    def _failed(self, sink: InlineSink, request_id: str, message: str) -> None:
        line = " ".join(redact(message).split())  # one line, secrets out
        self.last_error = line
        sink.done(request_id, "error", line)

    def _spent(self, session_id: str) -> None:
        """The panels showing ``session_id`` update their cost line."""
        for panel in list(self.agent.panels):
            spent: Any = getattr(panel, "completions_spent", None)
            if spent is not None:
                spent(session_id)

    # ------------------------------------------------------------ cells

    def _cell_starts(self, *_: Any) -> None:
        self.executing = True
        for _rid, task in list(self._flight.values()):
            task.cancel()  # the cell changes what the suggestion was for

    def _cell_ends(self, *_: Any) -> None:
        self.executing = False
        try:
            self.tell()  # a cell may have changed the settings (`%env`, a file written)
        except Exception:  # a hook that raises prints a traceback into the user's cell
            log.exception("reading the inline completion state failed")


def pause_s(debounce_ms: int, waited_ms: int) -> float:
    """What is left of the debounce once the front end waited ``waited_ms`` itself."""
    return max(0, debounce_ms - waited_ms) / 1000


def completer(agent: KernelAgent) -> InlineCompleter:
    """The kernel's one completer, made on first use (not at ``%load_ext``)."""
    if agent.inline is None:
        agent.inline = InlineCompleter(agent)
    found: InlineCompleter = agent.inline
    return found
