"""Bus events → compact UI messages for the widget and the side panel (pure, no widget import).

Streaming text goes out as ``delta`` messages (only what was appended), coalesced to one
message per part every ~50 ms, so UI traffic grows with the text, not with its square.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from jupyter_agent.core.events import (
    AnyEvent,
    MessageRemoved,
    MessageUpdated,
    PartRemoved,
    PartUpdated,
    PermissionAsked,
    PermissionReplied,
    SessionCompacted,
    SessionErrored,
)
from jupyter_agent.core.messages import (
    AnyPart,
    AssistantMessage,
    CompactionPart,
    FilePart,
    ReasoningPart,
    RetryPart,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStateRunning,
)

OUTPUT_CAP = 20_000
SUMMARY_CAP = 120
FLUSH_S = 0.05
UIMessage = dict[str, Any]
SUMMARY_KEYS = ("command", "filePath", "pattern", "code", "name", "description", "path", "action")


def input_summary(tool: str, data: dict[str, Any]) -> str:
    """One line that says what a call does: the command, the path, the code's first line."""
    for key in SUMMARY_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            line = value.strip().split("\n")[0]
            return line if len(line) <= SUMMARY_CAP else line[: SUMMARY_CAP - 1] + "…"
    text = json.dumps(data)
    return text if len(text) <= SUMMARY_CAP else text[: SUMMARY_CAP - 1] + "…"


def _cap(text: str) -> str:
    if len(text) <= OUTPUT_CAP:
        return text
    return text[:OUTPUT_CAP] + f"\n… ({len(text) - OUTPUT_CAP} more chars)"


def part_view(part: AnyPart) -> UIMessage | None:
    """A display snapshot of a part; None for parts the UI does not show."""
    base: UIMessage = {"id": part.id, "message_id": part.message_id, "type": part.type}
    if isinstance(part, (TextPart, ReasoningPart)):
        if isinstance(part, TextPart) and (part.ignored or part.synthetic):
            return None
        return {**base, "text": part.text}
    if isinstance(part, ToolPart):
        state = part.state
        view = {
            **base,
            "tool": part.tool,
            "status": state.status,
            "input": input_summary(part.tool, state.input),
        }
        if isinstance(state, ToolStateRunning):
            view["title"] = state.title or ""
            live = state.metadata.get("output")
            if isinstance(live, str):
                view["output"] = _cap(live)
        elif isinstance(state, ToolStateCompleted):
            view.update(
                title=state.title,
                output=_cap(state.output),
                attachments=[
                    {"mime": a.mime, "url": a.url} for a in state.attachments if a.mime.startswith("image/")
                ],
            )
        elif isinstance(state, ToolStateError):
            view.update(error=state.error, interrupted=bool(state.metadata.get("interrupted")))
        return view
    if isinstance(part, RetryPart):
        return {**base, "attempt": part.attempt, "error": part.error.message, "next": part.next}
    if isinstance(part, CompactionPart):
        return {**base, "auto": part.auto}
    if isinstance(part, FilePart) and part.mime.startswith("image/"):
        return {**base, "mime": part.mime, "url": part.url}
    return None


def gauge_message(tokens: int, percent: int | None) -> UIMessage:
    text = f"{tokens:,} tokens" + (f" · {percent}% used" if percent is not None else "")
    level = "ok" if percent is None or percent < 70 else "warn" if percent < 90 else "high"
    return {"kind": "gauge", "tokens": tokens, "percent": percent, "text": text, "level": level}


class Renderer:
    """Turns events into UI messages, remembering what each part already showed."""

    def __init__(self) -> None:
        self._shown: dict[str, tuple[str, str]] = {}
        self._users: set[str] = set()
        """Ids of user messages: their text is shown as the prompt, not as an answer."""

    def render(self, event: AnyEvent) -> list[UIMessage]:
        if isinstance(event, PartUpdated):
            part = event.part
            view = part_view(part)
            if view is None:
                return []
            key = (view.get("status", ""), view.get("title", "") or "")
            if event.delta and part.id in self._shown and "text" in view:
                return [{"kind": "delta", "id": part.id, "text": event.delta}]
            if isinstance(part, (TextPart, ReasoningPart)) and part.id in self._shown and not event.delta:
                return []  # a final write of text already streamed
            if (
                isinstance(part, ToolPart)
                and self._shown.get(part.id) == key
                and part.state.status != "running"
            ):
                return []
            self._shown[part.id] = key
            if part.message_id in self._users:
                view["role"] = "user"
            return [{"kind": "part", "part": view}]
        if isinstance(event, MessageUpdated):
            info = event.message
            if info.role == "user":
                self._users.add(info.id)
            shown: UIMessage = {"id": info.id, "role": info.role, "agent": info.agent}
            if isinstance(info, AssistantMessage):
                shown.update(
                    summary=info.summary,
                    finish=info.finish,
                    error=info.error.message if info.error else None,
                    error_name=info.error.name if info.error else None,
                )
            return [{"kind": "message", "message": shown}]
        if isinstance(event, (PartRemoved, MessageRemoved)):
            target = event.part_id if isinstance(event, PartRemoved) else event.message_id
            return [{"kind": "removed", "id": target}]
        if isinstance(event, PermissionAsked):
            r = event.request
            return [
                {
                    "kind": "permission",
                    "request": {
                        "id": r.id,
                        "permission": r.permission,
                        "patterns": r.patterns,
                        "title": r.title,
                    },
                }
            ]
        if isinstance(event, PermissionReplied):
            return [{"kind": "permission_done", "id": event.request_id, "reply": event.reply}]
        if isinstance(event, SessionCompacted):
            return [{"kind": "compacted"}]
        if isinstance(event, SessionErrored):
            return [{"kind": "notice", "text": event.error.message, "level": "error"}]
        return []


class DeltaBuffer:
    """Coalesces deltas per part; everything else flushes pending deltas first (keeps order)."""

    def __init__(
        self, send: Callable[[UIMessage], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._send = send
        self._clock = clock
        self._pending: dict[str, list[str]] = {}
        self._order: list[str] = []
        self._since: float | None = None

    def push(self, message: UIMessage) -> bool:
        """Queue or send ``message``; True when deltas are waiting for a ``flush``."""
        if message["kind"] != "delta":
            self.flush()
            self._send(message)
            return False
        pid = message["id"]
        if pid not in self._pending:
            self._pending[pid] = []
            self._order.append(pid)
        self._pending[pid].append(message["text"])
        now = self._clock()
        if self._since is None:
            self._since = now
        elif now - self._since >= FLUSH_S:
            self.flush()
            return False
        return True

    def flush(self) -> None:
        for pid in self._order:
            self._send({"kind": "delta", "id": pid, "text": "".join(self._pending[pid])})
        self._pending.clear()
        self._order.clear()
        self._since = None
