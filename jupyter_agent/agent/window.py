"""Which messages a reopened session loads first: what the next request and prune read.

A long session is mostly history hidden by its last compaction, and validating every
stored row is what reopening costs (seconds for 10,000 parts). The window is the newest
completed compaction's verbatim tail and everything after it, extended back a page at a
time until prune's walk stops inside it (at a summary or an output it already cleared).
What the loop reads from the window is what it would read from the whole history: the
view after the compaction, the last prompt and answers, the pending task, prune's choice
and a turn's cost. Older messages load on demand (``Recorder.history``).
"""

from __future__ import annotations

from jupyter_agent.agent.ports import SessionStore
from jupyter_agent.context.compaction import filter_compacted
from jupyter_agent.context.prune import prune_stops_within
from jupyter_agent.core.messages import MessageWithParts

PAGE = 100
"""Messages loaded per step when prune's walk goes further back than the compaction."""


def load_window(
    store: SessionStore, session_id: str, until: str | None = None
) -> tuple[list[MessageWithParts], str | None]:
    """The window (messages before ``until`` only) and its first id; ``None``: all was loaded."""
    window, start = _after_compaction(store, session_id, until)
    while start is not None and not prune_stops_within(window):
        older = store.message_before(session_id, start, PAGE)
        window = [*store.messages(session_id, older or "", until=start), *window]
        start = older
    return window, start


def _after_compaction(
    store: SessionStore, session_id: str, until: str | None
) -> tuple[list[MessageWithParts], str | None]:
    """From the newest compaction whose summary completed: its tail, itself, what follows.

    A compaction whose summary failed (or has not run) cuts nothing; the next older one
    is tried. Without any, the whole history is the window.
    """
    for part in store.compactions(session_id, until):
        start = min(part.tail_start_id or part.message_id, part.message_id)
        window = store.messages(session_id, start, until=until)
        visible = filter_compacted(window)
        if visible and visible[0].info.id == part.message_id:
            return window, start
    return store.messages(session_id, until=until), None
