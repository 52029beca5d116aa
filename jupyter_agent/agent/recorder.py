"""Persist, publish and remember every change the loop makes to a session.

The loop never writes to the store or the bus itself: it hands each new or changed
message/part here. The recorder writes it (coalesced while streaming), publishes the
event, and keeps the live history in memory so each step reads what changed instead of
reloading the whole session from SQLite (per-step work grows with new content only).
Whatever it records is redacted first (``core.redaction``): a key pasted in a prompt or
an ``@file:.env`` mention reaches neither the store, nor the bus, nor the next request.

Reopening a long session loads only its *window* (``window.py``): the messages from the
last completed compaction's verbatim tail on, and back as far as prune's walk goes —
everything the next request, the loop, prune and the budget's turn cost read. Older
messages are loaded on demand, the first time ``history()`` is asked for (export, fork,
the panel, revert read the store or the whole history themselves).
"""

from __future__ import annotations

import itertools
from typing import TypeVar

from pydantic import BaseModel

from jupyter_agent.agent.delta_frames import DeltaFrames
from jupyter_agent.agent.ports import SessionStore
from jupyter_agent.agent.window import load_window
from jupyter_agent.core import cost
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.events import (
    MessageRemoved,
    MessageUpdated,
    PartRemoved,
    PartUpdated,
    SessionUpdated,
)
from jupyter_agent.core.messages import AnyMessage, AnyPart, MessageWithParts, Session, ToolPart
from jupyter_agent.core.redaction import contains_secret, redact_value, secret_values

_T = TypeVar("_T", bound=BaseModel)


class Recorder:
    """Write-through cache of one session's messages and parts."""

    def __init__(self, store: SessionStore, bus: Bus, session: Session, *, load: bool = True) -> None:
        """``load=False``: a writer only (recording a prompt), its history holds what it wrote."""
        self.store = store
        self.bus = bus
        self.session = session
        self._until = session.revert.message_id if session.revert is not None else None
        """Reverted messages (id ≥ the revert point) are hidden until cleanup/unrevert."""
        self._start: str | None = None
        """First message loaded; ``None`` once the whole history is (or a writer holds all it needs)."""
        self._history: list[MessageWithParts] = []
        self._older: list[MessageWithParts] | None = None
        """Messages before ``_older_until`` without their parts, read once for the session's cost."""
        self._older_until = ""
        if load:
            self._history, self._start = load_window(store, session.id, self._until)
        self._index: dict[str, MessageWithParts] = {m.info.id: m for m in self._history}
        self.structure = 0
        """Bumped when history is reordered or shrinks: incremental readers start over."""
        self._log: list[str] = []
        """Ids of messages changed, in order; readers keep a position in it."""
        self._frames = DeltaFrames(self._publish_delta)
        """Streamed deltas wait here for the end of their frame (``delta_frames.py``)."""

    # ------------------------------------------------------------ reads

    def history(self) -> list[MessageWithParts]:
        """The whole live history, oldest first (older messages load now if not yet);
        callers must not mutate it."""
        if self._start is not None:
            self._load_older()
        return self._history

    def window(self) -> list[MessageWithParts]:
        """The loaded newest part of the history, oldest first: all the loop, the request,
        prune and a turn's cost read (the whole history once it was loaded)."""
        return self._history

    @property
    def complete(self) -> bool:
        """True when the whole history is in memory."""
        return self._start is None

    def find(self, message_id: str) -> MessageWithParts | None:
        return self._index.get(message_id)

    def spent(self) -> CostTotal:
        """What the whole session cost, the calls made for it outside its messages (its title)
        and its sub-agent sessions included; older messages are read once, without their parts."""
        if self._older is None:
            self._older_until = self._start or ""
            self._older = (
                self.store.messages(self.session.id, until=self._start, parts=False) if self._start else []
            )
        newer = (m for m in self._history if m.info.id >= self._older_until)
        calls = self.store.call_costs(self.session.id).get(self.session.id)
        total = cost.total(itertools.chain(self._older, newer))
        if calls:
            total.merge(calls)
        subtasks = self.store.subtask_costs(self.session.id)  # `task` and @agent runs were paid for it
        return total.merge(subtasks) if subtasks.steps else total

    def reload(self) -> None:
        """Re-read from the store (after another process or a revert changed it)."""
        self._frames.flush()
        self.store.flush()
        if self._start is None:
            self._history = self.store.messages(self.session.id, until=self._until)
        else:
            self._history, self._start = load_window(self.store, self.session.id, self._until)
        self._index = {m.info.id: m for m in self._history}
        self._older = None
        self.structure += 1

    def _load_older(self) -> None:
        older = self.store.messages(self.session.id, until=self._start)
        self._start = None
        fresh = [m for m in older if m.info.id not in self._index]
        if not fresh:
            return
        self._history = sorted([*fresh, *self._history], key=lambda m: m.info.id)
        self._index.update((m.info.id, m) for m in fresh)
        self.structure += 1

    def changes_since(self, position: int) -> set[str]:
        return set(self._log[position:])

    def change_count(self) -> int:
        return len(self._log)

    def touch(self, message_id: str) -> None:
        """Record that a message changed outside the write methods."""
        self._log.append(message_id)

    def mark_compacted(self, part_ids: list[str], at_ms: int) -> int:
        """Prune: clear these completed tool outputs (``time.compacted``) in the store and
        in the live history; returns how many stored parts changed."""
        changed = self.store.mark_compacted(part_ids, at_ms)
        wanted = set(part_ids)
        for entry in self._history:
            for i, p in enumerate(entry.parts):
                if p.id in wanted and isinstance(p, ToolPart) and p.state.status == "completed":
                    time = p.state.time.model_copy(update={"compacted": at_ms})
                    entry.parts[i] = p.model_copy(update={"state": p.state.model_copy(update={"time": time})})
                    self._log.append(entry.info.id)
        return changed

    # ------------------------------------------------------------ writes

    def update_session(self, session: Session) -> Session:
        self._frames.flush()
        self.session = self.store.update_session(_clean(session))
        self.bus.publish(SessionUpdated(session=self.session))
        return self.session

    def message(self, message: AnyMessage) -> AnyMessage:
        self._frames.flush()
        message = _clean(message)
        self.store.update_message(message)
        entry = self._index.get(message.id)
        if entry is None:
            entry = MessageWithParts(info=message, parts=[])
            self._index[message.id] = entry
            self._insert(entry)
        else:
            entry.info = message
        self._log.append(message.id)
        self.bus.publish(MessageUpdated(message=message))
        return message

    def part(self, part: AnyPart, *, delta: str | None = None, final: bool = True) -> AnyPart:
        """Store and publish a part; ``final=False`` while it is still streaming."""
        self._frames.flush()
        part = _clean(part)
        self.store.update_part(part, delta=delta, final=final)
        entry = self._index.get(part.message_id)
        if entry is not None:
            for i, existing in enumerate(entry.parts):
                if existing.id == part.id:
                    entry.parts[i] = part
                    break
            else:
                if entry.parts and entry.parts[-1].id > part.id:
                    entry.parts.append(part)
                    entry.parts.sort(key=lambda p: p.id)
                else:
                    entry.parts.append(part)
            self._log.append(part.message_id)
        self.bus.publish(PartUpdated(part=part, delta=delta))
        return part

    def stream(self, part: AnyPart, delta: str) -> None:
        """The per-token path: ``part`` (already in the history) grew by ``delta``; stored
        and published once per frame (``delta_frames.py``)."""
        if not self._log or self._log[-1] != part.message_id:
            self._log.append(part.message_id)
        self._frames.add(part, delta)

    def _publish_delta(self, part: AnyPart, delta: str) -> None:
        """One frame of a streaming part: the store keeps it for its coalesced write."""
        self.store.update_part(part, delta=delta, final=False)
        self.bus.publish(PartUpdated(part=part, delta=delta))

    def remove_part(self, part: AnyPart) -> None:
        self._frames.flush()
        self.store.remove_part(part)
        entry = self._index.get(part.message_id)
        if entry is not None:
            entry.parts = [p for p in entry.parts if p.id != part.id]
            self._log.append(part.message_id)
        self.bus.publish(PartRemoved(session_id=part.session_id, message_id=part.message_id, part_id=part.id))

    def remove_message(self, message_id: str) -> None:
        self._frames.flush()
        self.store.remove_message(self.session.id, message_id)
        entry = self._index.pop(message_id, None)
        if entry is not None:
            self._history.remove(entry)
            self.structure += 1
        self.bus.publish(MessageRemoved(session_id=self.session.id, message_id=message_id))

    def flush(self) -> None:
        """Publish the pending deltas and write every coalesced part now."""
        self._frames.flush()
        self.store.flush()

    def _insert(self, entry: MessageWithParts) -> None:
        if not self._history or self._history[-1].info.id < entry.info.id:
            self._history.append(entry)
            return
        self._history.append(entry)
        self._history.sort(key=lambda m: m.info.id)
        self.structure += 1


def _clean(item: _T) -> _T:
    """``item`` itself when it holds no secret (the common case: no copy), else a redacted copy."""
    found = secret_values()
    if not found or not contains_secret(item.model_dump_json(), found):
        return item
    return type(item).model_validate(redact_value(item.model_dump(), found))
