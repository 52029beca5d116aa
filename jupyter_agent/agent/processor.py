"""One model step: turn the provider's stream into parts, then run the tool calls.

Text and reasoning parts are written while they stream (coalesced by the store, sent
as deltas on the bus); tool calls are executed in order once the model has finished
the step. The result tells the loop what comes next: ``continue`` (tools ran),
``stop`` or ``compact`` (the provider said the context overflowed).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.secrets import redact, redact_value
from jupyter_agent.agent.tool_runner import ToolRunner, abort_unfinished
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionErrored
from jupyter_agent.core.messages import (
    AnyPart,
    AssistantMessage,
    MessageError,
    PartTime,
    ReasoningPart,
    StepFinishPart,
    StepStartPart,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateError,
    ToolStatePending,
    ToolTimeError,
)
from jupyter_agent.providers.errors import AbortedError, ContextOverflowError, ProviderError
from jupyter_agent.tools.base import PermissionDenied, PermissionQuestion

Outcome = Literal["continue", "stop", "compact"]
DOOM_LOOP_THRESHOLD = 3


@dataclass
class _StepState:
    text: dict[str, TextPart | ReasoningPart] = field(default_factory=dict)
    tools: dict[str, ToolPart] = field(default_factory=dict)
    raw_args: dict[str, str] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    created: list[AnyPart] = field(default_factory=list)
    finished: bool = False


class StepProcessor:
    """Processes the stream of one assistant message (one step)."""

    def __init__(
        self,
        recorder: Recorder,
        message: AssistantMessage,
        tools: ToolRunner,
        overflow: Callable[[Tokens], bool] | None = None,
    ) -> None:
        self.recorder = recorder
        self.message = message
        self.tools = tools
        self.overflow = overflow
        """Checked at every finish-step (not while summarising): full context → compact next."""
        self.needs_compaction = False
        self._state = _StepState()

    # ------------------------------------------------------------ helpers

    def _new_id(self) -> str:
        return ids.ascending("prt")

    def _add(self, part: AnyPart, final: bool = True) -> AnyPart:
        self._state.created.append(part)
        return self.recorder.part(part, final=final)

    def _discard_attempt(self) -> None:
        """A retried stream starts over: drop what the failed attempt had streamed."""
        for part in self._state.created:
            if not isinstance(part, StepStartPart):
                self.recorder.remove_part(part)
        self._state = _StepState(created=[p for p in self._state.created if isinstance(p, StepStartPart)])

    # ------------------------------------------------------------ stream

    async def process(self, stream: AsyncIterator[Any]) -> Outcome:
        self._add(
            StepStartPart(id=self._new_id(), session_id=self.message.session_id, message_id=self.message.id)
        )
        try:
            async for event in stream:
                self._handle(event)
        except asyncio.CancelledError:
            self._abort()
            raise
        except AbortedError:
            self._abort()
            return "stop"
        except ContextOverflowError:
            self._close_open_parts()
            return "compact"
        except ProviderError as exc:
            self._fail(exc.to_message_error())
            return "stop"
        self._close_open_parts()
        if not self._state.finished:
            self._fail(
                MessageError(name="api", message="The model's answer ended without a finish.", retryable=True)
            )
            return "stop"
        return await self._run_tools()

    def _handle(self, event: Any) -> None:
        kind = event.type
        st = self._state
        if kind == "attempt-restart":
            self._discard_attempt()
        elif kind in ("text-start", "reasoning-start"):
            self._start_text(kind.split("-")[0])
        elif kind in ("text-delta", "reasoning-delta"):
            key = kind.split("-")[0]
            part = st.text.get(key) or self._start_text(key)
            # hot path (once per token): extend in place; store and UIs hold this object
            part.text += event.delta
            self.recorder.stream(part, event.delta)
        elif kind in ("text-end", "reasoning-end"):
            self._end_text(kind.split("-")[0])
        elif kind == "tool-input-start":
            self._tool_part(event.call_id, event.name)
        elif kind == "tool-input-delta":
            st.raw_args[event.call_id] = st.raw_args.get(event.call_id, "") + event.delta
        elif kind == "tool-call":
            call = self._tool_part(event.call_id, event.name)
            st.raw_args[event.call_id] = event.arguments
            state = ToolStatePending(input=self.tools.parse(call, event.arguments)[1], raw=event.arguments)
            update: dict[str, Any] = {"state": state}
            if event.provider_metadata:
                update["provider_metadata"] = event.provider_metadata
            st.tools[event.call_id] = call.model_copy(update=update)
            self.recorder.part(st.tools[event.call_id])
        elif kind == "reasoning-metadata":
            self._reasoning_metadata(event.provider_metadata)
        elif kind == "finish-step":
            self._finish(event.reason, event.usage, event.cost)

    def _start_text(self, key: str) -> TextPart | ReasoningPart:
        self._end_text(key)
        common = dict(id=self._new_id(), session_id=self.message.session_id, message_id=self.message.id)
        part: TextPart | ReasoningPart
        part = TextPart(**common, time=PartTime()) if key == "text" else ReasoningPart(**common)
        self._state.text[key] = part
        self._add(part, final=False)
        return part

    def _end_text(self, key: str) -> None:
        part = self._state.text.pop(key, None)
        if part is None:
            return
        time = (part.time or PartTime()).model_copy(update={"end": now_ms()})
        self.recorder.part(part.model_copy(update={"time": time}))

    def _reasoning_metadata(self, metadata: dict[str, Any]) -> None:
        """Keep the thinking blocks on this step's (last) reasoning part, creating one for
        redacted-only thinking, so the next request can send them back."""
        self._close_open_parts()
        entry = self.recorder.find(self.message.id)
        parts = entry.parts if entry is not None else self._state.created
        reasoning = [p for p in parts if isinstance(p, ReasoningPart)]
        last = reasoning[-1] if reasoning else None
        for earlier in reasoning[:-1]:
            if earlier.provider_metadata:  # the blocks so far moved on to the last part
                self.recorder.part(earlier.model_copy(update={"provider_metadata": None}))
        if last is None:
            common = dict(id=self._new_id(), session_id=self.message.session_id, message_id=self.message.id)
            self._add(ReasoningPart(**common, provider_metadata=metadata, time=PartTime(end=now_ms())))
            return
        self.recorder.part(last.model_copy(update={"provider_metadata": metadata}))

    def _close_open_parts(self) -> None:
        for key in list(self._state.text):
            self._end_text(key)

    def _tool_part(self, call_id: str, name: str) -> ToolPart:
        st = self._state
        if call_id not in st.tools:
            part = ToolPart(
                id=self._new_id(),
                session_id=self.message.session_id,
                message_id=self.message.id,
                call_id=call_id,
                tool=name,
            )
            st.tools[call_id] = part
            st.order.append(call_id)
            self._add(part)
        return st.tools[call_id]

    def _finish(self, reason: str, usage: Tokens, cost: float | None) -> None:
        self._close_open_parts()
        self._state.finished = True
        self._add(
            StepFinishPart(
                id=self._new_id(),
                session_id=self.message.session_id,
                message_id=self.message.id,
                reason=reason,
                tokens=usage,
                cost=cost or 0.0,
                cost_unknown=cost is None,
            )
        )
        self.message = self.message.model_copy(
            update={
                "tokens": usage,
                "cost": self.message.cost + (cost or 0.0),
                "cost_unknown": self.message.cost_unknown or cost is None,
                "finish": reason,
            }
        )
        self.recorder.message(self.message)
        if self.overflow is not None and not self.message.summary and self.overflow(usage):
            self.needs_compaction = True

    # ------------------------------------------------------------ tools

    async def _run_tools(self) -> Outcome:
        st = self._state
        try:
            for index, call_id in enumerate(st.order):
                part = st.tools[call_id]
                if self._is_doom_loop(part):
                    try:
                        await self._ask_doom_loop(part)
                    except PermissionDenied as exc:
                        self._refuse(st.order[index:], str(exc))
                        self._stopped_by_doom_loop(part, str(exc))
                        return "stop"
                st.tools[call_id] = await self.tools.run(part, st.raw_args.get(call_id, ""))
        except asyncio.CancelledError:
            self._abort()
            raise
        self._complete()
        if self.needs_compaction:
            return "compact"
        return "continue" if st.order else "stop"

    async def _ask_doom_loop(self, part: ToolPart) -> None:
        await self.tools.ask(
            part,
            PermissionQuestion(
                "doom_loop",
                [part.tool],
                f"'{part.tool}' was called {DOOM_LOOP_THRESHOLD} times in a row with the same input",
                {"tool": part.tool, "input": part.state.input},
            ),
        )

    def _refuse(self, call_ids: list[str], reason: str) -> None:
        """A rejected doom loop stops the step: the repeated call and the rest are not run."""
        for i, call_id in enumerate(call_ids):
            part = self._state.tools[call_id]
            text = reason if i == 0 else "Skipped: an earlier tool call in this step was refused."
            self.recorder.part(
                part.model_copy(
                    update={
                        "state": ToolStateError(
                            input=part.state.input,
                            error=text,
                            metadata={"rejected": True},
                            time=ToolTimeError(start=now_ms()),
                        )
                    }
                )
            )

    def _stopped_by_doom_loop(self, part: ToolPart, reason: str) -> None:
        """The run ends here: say why (a headless run exits non-zero), keep the calls in history."""
        error = MessageError(
            name="aborted",
            message=(
                f"Stopped: '{part.tool}' was called {DOOM_LOOP_THRESHOLD} times in a row with the same "
                f"input and repeating it was refused ({reason}). Rephrase the request or allow it."
            ),
        )
        self.message = self.message.model_copy(update={"error": error})
        self._complete()
        self.recorder.bus.publish(SessionErrored(session_id=self.message.session_id, error=error))

    def _is_doom_loop(self, part: ToolPart) -> bool:
        """Three identical calls of one tool in a row inside this message."""
        entry = self.recorder.find(self.message.id)
        if entry is None:
            return False
        tools = [p for p in entry.parts if isinstance(p, ToolPart)]
        upto = [p for p in tools if p.id <= part.id][-DOOM_LOOP_THRESHOLD:]
        return len(upto) == DOOM_LOOP_THRESHOLD and all(
            p.tool == part.tool and p.state.input == part.state.input for p in upto
        )

    # ------------------------------------------------------------ endings

    def _complete(self) -> None:
        time = self.message.time.model_copy(update={"completed": now_ms()})
        self.message = self.message.model_copy(update={"time": time})
        self.recorder.message(self.message)

    def _fail(self, error: MessageError) -> None:
        # a proxy may echo the key in its error text: never store it
        error = error.model_copy(
            update={"message": redact(error.message), "metadata": redact_value(error.metadata)}
        )
        abort_unfinished(self.recorder, self.message.id)
        self.message = self.message.model_copy(update={"error": error})
        self._complete()
        self.recorder.bus.publish(SessionErrored(session_id=self.message.session_id, error=error))

    def _abort(self) -> None:
        self._close_open_parts()
        abort_unfinished(self.recorder, self.message.id)
        self.message = self.message.model_copy(
            update={"error": MessageError(name="aborted", message="Stopped by the user.")}
        )
        self._complete()
        self.recorder.flush()
