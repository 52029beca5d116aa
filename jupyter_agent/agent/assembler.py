"""Stream events → the parts of one assistant message, with no I/O.

Each event gives back the part writes it causes, in order; the processor stores them
(``processor.py``). Text and reasoning grow in place while they stream (the store and the
views hold that same object), tool calls collect their raw arguments until the model has
finished the step, and a retried attempt takes back what it had streamed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from jupyter_agent.core import ids, nesting, unicode
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AnyPart,
    PartTime,
    ReasoningPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    Tokens,
    ToolPart,
    ToolStatePending,
)


class PartWrite(NamedTuple):
    """One change to store: a part (``final=False`` while streaming), a streamed delta, or a removal.

    A tuple, not a dataclass: one is made per streamed token."""

    part: AnyPart
    delta: str | None = None
    """Text ``part`` grew by (it already holds it): the per-token path."""
    final: bool = True
    removed: bool = False


@dataclass(frozen=True)
class Finish:
    """The model finished the step (``finish-step``)."""

    reason: str
    usage: Tokens
    cost: float | None


def shown_input(raw: str) -> dict[str, Any]:
    """A tool call's arguments as views show them, also when the JSON is broken."""
    try:
        loaded = nesting.loads(raw) if raw.strip() else {}
    except (json.JSONDecodeError, nesting.TooDeep):
        return {"raw": unicode.scrub(raw)}
    shown = unicode.scrub_value(loaded)
    return shown if isinstance(shown, dict) else {"value": shown}


@dataclass
class _Attempt:
    text: dict[str, TextPart | ReasoningPart] = field(default_factory=dict)
    """The open text / reasoning part, by kind."""
    tools: dict[str, ToolPart] = field(default_factory=dict)
    raw_args: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    latest: dict[str, AnyPart] = field(default_factory=dict)
    """Every part this attempt created, in its latest version, in creation order."""


class PartAssembler:
    """Assembles one step's parts from the provider's stream events."""

    def __init__(self, session_id: str, message_id: str) -> None:
        self.session_id = session_id
        self.message_id = message_id
        self.finish: Finish | None = None
        self._start: StepStartPart | None = None
        self._st = _Attempt()

    # ------------------------------------------------------------ what the executor reads

    def tool_calls(self) -> list[tuple[ToolPart, str]]:
        """The step's tool calls in order, with their raw argument text."""
        return [(self._st.tools[c], self._st.raw_args.get(c, "")) for c in self._st.order]

    # ------------------------------------------------------------ events

    def start(self) -> list[PartWrite]:
        self._start = StepStartPart(id=self._new_id(), session_id=self.session_id, message_id=self.message_id)
        return [PartWrite(self._start)]

    def feed(self, event: Any) -> list[PartWrite]:
        """The writes one stream event causes."""
        kind = event.type
        st = self._st
        out: list[PartWrite] = []
        if kind == "text-delta" or kind == "reasoning-delta":  # the hot path: once per token
            key = kind[: -len("-delta")]
            part = st.text.get(key) or self._start_text(key, out)
            part.text += event.delta  # in place: the store and the views hold this object
            out.append(PartWrite(part, event.delta, False))
        elif kind == "attempt-restart":
            out = [PartWrite(p, removed=True) for p in st.latest.values()]
            self._st, self.finish = _Attempt(), None  # the step start stays
        elif kind in ("text-start", "reasoning-start"):
            self._start_text(kind.split("-")[0], out)
        elif kind in ("text-end", "reasoning-end"):
            self._end_text(kind.split("-")[0], out)
        elif kind == "tool-input-start":
            self._tool_part(event.call_id, event.name, out)
        elif kind == "tool-input-delta":
            st.raw_args[event.call_id] = st.raw_args.get(event.call_id, "") + event.delta
        elif kind == "tool-call":
            call = self._tool_part(event.call_id, event.name, out)
            st.raw_args[event.call_id] = event.arguments
            state = ToolStatePending(input=shown_input(event.arguments), raw=event.arguments)
            update: dict[str, Any] = {"state": state}
            if event.provider_metadata:
                update["provider_metadata"] = event.provider_metadata
            pending = st.tools[event.call_id] = call.model_copy(update=update)
            self._put(pending, out)
        elif kind == "reasoning-metadata":
            self._reasoning_metadata(event.provider_metadata, out)
        elif kind == "finish-step":
            self.close(out)
            self.finish = Finish(event.reason, event.usage, event.cost)
            step_finish = StepFinishPart(
                id=self._new_id(),
                session_id=self.session_id,
                message_id=self.message_id,
                reason=event.reason,
                tokens=event.usage,
                cost=event.cost or 0.0,
                cost_unknown=event.cost is None,
            )
            self._put(step_finish, out)
        return out

    def close(self, out: list[PartWrite] | None = None) -> list[PartWrite]:
        """End the open text and reasoning parts (end of stream, abort, overflow)."""
        out = [] if out is None else out
        for key in list(self._st.text):
            self._end_text(key, out)
        return out

    # ------------------------------------------------------------ helpers

    def _new_id(self) -> str:
        return ids.ascending("prt")

    def _put(self, part: AnyPart, out: list[PartWrite], final: bool = True) -> AnyPart:
        self._st.latest[part.id] = part
        out.append(PartWrite(part, final=final))
        return part

    def _start_text(self, key: str, out: list[PartWrite]) -> TextPart | ReasoningPart:
        self._end_text(key, out)
        common = dict(id=self._new_id(), session_id=self.session_id, message_id=self.message_id)
        part: TextPart | ReasoningPart
        part = TextPart(**common, time=PartTime()) if key == "text" else ReasoningPart(**common)
        self._st.text[key] = part
        self._put(part, out, final=False)
        return part

    def _end_text(self, key: str, out: list[PartWrite]) -> None:
        part = self._st.text.pop(key, None)
        if part is not None:
            time = (part.time or PartTime()).model_copy(update={"end": now_ms()})
            self._put(part.model_copy(update={"time": time}), out)

    def _reasoning_metadata(self, metadata: dict[str, Any], out: list[PartWrite]) -> None:
        """Keep the thinking blocks on this step's (last) reasoning part, creating one for
        redacted-only thinking, so the next request can send them back."""
        self.close(out)
        reasoning = [p for p in self._st.latest.values() if isinstance(p, ReasoningPart)]
        last = reasoning[-1] if reasoning else None
        for earlier in reasoning[:-1]:
            if earlier.provider_metadata:  # the blocks so far moved on to the last part
                self._put(earlier.model_copy(update={"provider_metadata": None}), out)
        if last is None:
            common = dict(id=self._new_id(), session_id=self.session_id, message_id=self.message_id)
            self._put(ReasoningPart(**common, provider_metadata=metadata, time=PartTime(end=now_ms())), out)
            return
        self._put(last.model_copy(update={"provider_metadata": metadata}), out)

    def _tool_part(self, call_id: str, name: str, out: list[PartWrite]) -> ToolPart:
        st = self._st
        if call_id not in st.tools:
            part = ToolPart(
                id=self._new_id(),
                session_id=self.session_id,
                message_id=self.message_id,
                call_id=call_id,
                tool=name,
            )
            st.tools[call_id] = part
            st.order.append(call_id)
            self._put(part, out)
        return st.tools[call_id]
