"""One in-process event bus: publishers never know who listens (store, widget, comm, CLI).

Delivery is synchronous and in order. A failing subscriber is logged and skipped so a
broken UI can never stop the agent loop or lose a stored part.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

from jupyter_agent.core.events import AnyEvent

log = logging.getLogger(__name__)


class EventSink(Protocol):
    """Takes the bus's events: the store's writer, the widget, the side panel, the CLI printer."""

    def __call__(self, event: AnyEvent, /) -> None: ...


class Bus:
    """Publish events to subscribers, optionally filtered by event ``type``."""

    def __init__(self) -> None:
        self._subs: list[tuple[frozenset[str] | None, EventSink]] = []
        self._lock = threading.Lock()

    def subscribe(self, fn: EventSink, *types: str) -> Callable[[], None]:
        """Register ``fn`` for ``types`` (all events when none); returns an unsubscribe."""
        entry = (frozenset(types) or None, fn)
        with self._lock:
            self._subs.append(entry)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._subs:
                    self._subs.remove(entry)

        return unsubscribe

    def publish(self, event: AnyEvent) -> None:
        with self._lock:
            subs = list(self._subs)
        for types, fn in subs:
            if types is not None and event.type not in types:
                continue
            try:
                fn(event)
            except Exception:
                log.exception("event subscriber failed on %s", event.type)
