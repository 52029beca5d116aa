"""The context gauge of one view, kept current while text streams (not only at step ends).

Exact numbers come with each finished step (the provider's usage); in between, the text
and reasoning streamed so far are estimated (characters / 4, as the spec's estimate) on
top of the last exact count, and the gauge is re-sent at most every ``INTERVAL_S``.
The cost of the prompt and the session (``core.cost``) rides along, updated per step
(left out for a local model whose calls cost nothing or have no price: that is no news),
and the inline completions made for the session on a line of their own (their tokens are
never in the gauge: they are not in the agent's context).
The window is the running model's: each run's ``RunStarted`` sets it, so every view of a
session (the cell, the side panel) shows the same percentage after a model change.
"""

from __future__ import annotations

import time
from typing import Any, Protocol

from jupyter_agent.context.overflow import gauge, gauge_for
from jupyter_agent.context.tokens import CHARS_PER_TOKEN
from jupyter_agent.core.cost import CostTracker, completions_text
from jupyter_agent.core.events import AnyEvent, MessageUpdated, PartUpdated, RunStarted
from jupyter_agent.core.messages import AssistantMessage

INTERVAL_S = 0.25


class GaugeView(Protocol):
    def set_gauge(self, tokens: int, percent: int | None, cost: str = "") -> None: ...


class LiveGauge:
    """A bus listener for ``session_id`` that drives ``view.set_gauge``."""

    def __init__(
        self, view: GaugeView, session_id: str, context_limit: int | None, store: Any, *, local: bool = False
    ) -> None:
        self.view = view
        self.session_id = session_id
        self.store = store
        self.limit = context_limit
        self.local = local
        self.base = 0
        self.streamed = 0  # characters streamed since the last exact count
        self.shown = -1
        self.sent_at = 0.0
        history = store.messages(session_id, parts=False)  # costs and tokens live on messages
        self.costs = CostTracker(history)
        calls = store.call_costs(session_id).get(session_id)  # the title: paid, yet no message
        if calls is not None:
            self.costs.session.merge(calls)
        last = next((m.info for m in reversed(history) if isinstance(m.info, AssistantMessage)), None)
        self.cost = self._cost(last.parent_id) if last else ""
        self.completions = self._completions()
        initial = gauge(history, context_limit)
        self.base = initial.tokens
        if initial.tokens or self.completions:
            self._show(initial.tokens)

    def _completions(self) -> str:
        spent = getattr(self.store, "completion_costs", None)  # a front end without inline completion
        return completions_text(spent(self.session_id)) if spent is not None else ""

    def completions_spent(self) -> None:
        """An inline completion was paid for this session: its line is shown now."""
        self.completions = self._completions()
        self._show(self.shown if self.shown >= 0 else self.base, force=True)

    def __call__(self, event: AnyEvent) -> None:
        if isinstance(event, RunStarted):
            if event.session_id == self.session_id:
                self.limit, self.local = event.model.context or None, event.local
                self.cost = "" if self.local and self.costs.session.usd == 0 else self.cost
                if self.base:
                    self._show(self.base, force=True)
        elif isinstance(event, MessageUpdated):
            info = event.message
            if not isinstance(info, AssistantMessage) or info.session_id != self.session_id:
                return
            self.costs.update(info)
            if info.tokens.output > 0 or info.summary:
                self.base = gauge_for(info.tokens, self.limit).tokens
                self.streamed = 0
                self.cost = self._cost(info.parent_id)
                self._show(self.base, force=True)
        elif isinstance(event, PartUpdated) and event.delta:
            part = event.part
            if part.session_id != self.session_id or part.type not in ("text", "reasoning"):
                return
            self.streamed += len(event.delta)
            now = time.monotonic()
            if now - self.sent_at >= INTERVAL_S:
                self._show(self.base + round(self.streamed / CHARS_PER_TOKEN))

    def _cost(self, parent_id: str) -> str:
        """The cost line, or nothing for a local model that has cost nothing so far."""
        if self.local and self.costs.session.usd == 0:
            return ""
        return self.costs.text(parent_id)

    def _show(self, tokens: int, force: bool = False) -> None:
        if tokens == self.shown and not force:  # forced at step ends: the cost may have changed
            return
        self.shown = tokens
        self.sent_at = time.monotonic()
        percent = round(tokens / self.limit * 100) if self.limit else None
        cost = " · ".join(text for text in (self.cost, self.completions) if text)
        self.view.set_gauge(tokens, percent, cost)
