"""What a late view needs to catch up: the compact current state, not the message log.

A view that renders after messages were sent (the cell scrolled into view, a second view,
VS Code re-rendering) asks once and gets this state in one message. Deltas are merged
into their part and repeated snapshots replace each other, so the replay is O(state)
and traffic stays O(text) per view, however many tokens streamed.
"""

from __future__ import annotations

import itertools
import json
from collections import OrderedDict
from dataclasses import dataclass, field

from jupyter_agent.ui.widget_protocol import (
    AnyLiveMessage,
    DeltaMsg,
    GaugeMsg,
    HiddenStateMsg,
    MessageMsg,
    NoticeMsg,
    OlderMsg,
    PartMsg,
    PermissionDoneMsg,
    PermissionMsg,
    ReasoningView,
    RemovedMsg,
    ReplayMsg,
    StatusMsg,
    TextView,
    UIMessage,
    VerifyMsg,
    to_wire,
)

MAX_ENTRIES = 5_000
MAX_CHARS = 16_000_000
"""Roughly 16 MB of state (mostly images); the oldest entries go first beyond it."""
_PINNED = ("gauge", "status", "older")


@dataclass
class _Entry:
    message: AnyLiveMessage
    size: int
    chunks: list[str] = field(default_factory=list)
    """Deltas appended to a text part since its snapshot (joined only on replay)."""


class Backlog:
    """An ordered, bounded map of entity → latest UI message."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> None:
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._max_entries = max_entries
        self._max_chars = max_chars
        self._size = 0
        self._dropped = 0
        self._unique = itertools.count()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def size(self) -> int:
        return self._size

    def record(self, message: UIMessage) -> None:
        if isinstance(message, DeltaMsg):
            entry = self._entries.get(f"part:{message.part_id}")
            if entry is not None:
                entry.chunks.append(message.text)
                entry.size += len(message.text)
                self._size += len(message.text)
                self._trim()
            return
        if isinstance(message, RemovedMsg):
            self._remove(message)
            return
        if isinstance(message, ReplayMsg):  # one view's catch-up, not state
            return
        key = self._key(message)
        old = self._entries.get(key)
        size = len(json.dumps(to_wire(message)))
        if old is not None:
            self._size -= old.size
            old.message, old.size, old.chunks = message, size, []
        else:
            self._entries[key] = _Entry(message, size)
        self._size += size
        self._trim()

    def replay(self) -> list[AnyLiveMessage]:
        """The state in first-seen order; text parts carry their whole text."""
        out: list[AnyLiveMessage] = []
        if self._dropped:
            text = f"({self._dropped} earlier items are not shown here.)"
            out.append(NoticeMsg(text=text))
        for entry in self._entries.values():
            message = entry.message
            if entry.chunks and isinstance(message, PartMsg):
                part = message.part
                if isinstance(part, TextView | ReasoningView):
                    text = part.text + "".join(entry.chunks)
                    message = PartMsg(part=part.model_copy(update={"text": text}))
            out.append(message)
        return out

    def _key(self, message: AnyLiveMessage) -> str:
        if isinstance(message, PartMsg):
            return f"part:{message.part.id}"
        if isinstance(message, MessageMsg):
            return f"message:{message.message.id}"
        if isinstance(message, PermissionMsg):
            return f"permission:{message.request.id}"
        if isinstance(message, PermissionDoneMsg):
            return f"permission_done:{message.request_id}"
        if isinstance(message, GaugeMsg):
            return "gauge"
        if isinstance(message, StatusMsg):
            return "status"
        if isinstance(message, OlderMsg):
            return "older"
        if isinstance(message, HiddenStateMsg):  # "added" replaces the offer
            return f"hidden_state:{message.run}"
        if isinstance(message, VerifyMsg):  # progress, then the table, in one place
            return "verify"
        return f"{message.kind}:{next(self._unique)}"  # notices, compaction markers

    def _remove(self, message: RemovedMsg) -> None:
        if message.part_id is not None:
            doomed = [f"part:{message.part_id}"]
        else:
            doomed = [f"message:{message.message_id}"] + [
                key
                for key, entry in self._entries.items()
                if isinstance(entry.message, PartMsg) and entry.message.part.message_id == message.message_id
            ]
        for key in doomed:
            entry = self._entries.pop(key, None)
            if entry is not None:
                self._size -= entry.size

    def _trim(self) -> None:
        while len(self._entries) > self._max_entries or self._size > self._max_chars:
            key = next((k for k in self._entries if k not in _PINNED), None)
            if key is None:
                return
            self._size -= self._entries.pop(key).size
            self._dropped += 1
