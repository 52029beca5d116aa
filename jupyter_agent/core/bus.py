"""One in-process event bus: publishers never know who listens (store, widget, comm, CLI).

Delivery is synchronous and in order. A failing subscriber is logged and skipped so a
broken UI can never stop the agent loop or lose a stored part.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from jupyter_agent.core.events import AnyEvent

log = logging.getLogger(__name__)

Subscriber = Callable[[AnyEvent], None]


class Bus:
    """Publish events to subscribers, optionally filtered by event ``type``."""

    def __init__(self) -> None:
        self._subs: list[tuple[frozenset[str] | None, Subscriber]] = []
        self._lock = threading.Lock()

    def subscribe(self, fn: Subscriber, *types: str) -> Callable[[], None]:
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
