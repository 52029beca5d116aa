"""One model step: store the parts the stream makes, then run the tool calls.

``assembler.py`` turns events into parts (pure); this module writes them (text and
reasoning while they stream, coalesced by the store and sent as deltas on the bus), ends
the assistant message, and hands the tool calls to ``executor.py`` once the model has
finished the step. The result tells the loop what comes next: ``continue`` (tools ran),
``stop`` or ``compact`` (the provider said the context overflowed).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from jupyter_agent.agent.assembler import PartAssembler, PartWrite
from jupyter_agent.agent.executor import DOOM_LOOP_THRESHOLD, run_tool_calls
from jupyter_agent.agent.gil_turns import short_gil_turns
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.tool_runner import ToolRunner, abort_unfinished
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionErrored
from jupyter_agent.core.messages import AssistantMessage, MessageError, Tokens, ToolPart
from jupyter_agent.core.provider_errors import AbortedError, ContextOverflowError, ProviderError
from jupyter_agent.core.redaction import redact, redact_value

Outcome = Literal["continue", "stop", "compact"]
SLICE_S = 0.005
"""The longest the stream keeps the event loop (it shares the kernel's) before letting
the user's cells, widget clicks and timers run: a fast provider's chunks are always ready,
so without a pause nothing else would run until the answer ended."""
MAX_PASSES = 20
"""At most this many loop iterations to others per pause (a busy notebook cannot stall the answer)."""


async def _let_others_run() -> None:
    """Give the event loop to whatever waits on it until nothing else is ready: a cell the
    user runs takes several iterations, one step each. (asyncio's ready queue says so; a
    loop without one, such as uvloop, gets one iteration.)"""
    ready = getattr(asyncio.get_running_loop(), "_ready", None)
    for _ in range(MAX_PASSES):
        await asyncio.sleep(0)
        if not ready:
            return


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
        self.parts = PartAssembler(message.session_id, message.id)

    def _write(self, writes: list[PartWrite]) -> None:
        for part, delta, final, removed in writes:
            if delta is not None:
                self.recorder.stream(part, delta)
            elif removed:
                self.recorder.remove_part(part)
            else:
                self.recorder.part(part, final=final)

    # ------------------------------------------------------------ stream

    async def process(self, stream: AsyncIterator[Any]) -> Outcome:
        self._write(self.parts.start())
        feed, write, clock = self.parts.feed, self._write, time.monotonic
        turn_ends = clock() + SLICE_S
        try:
            with short_gil_turns():
                async for event in stream:
                    write(feed(event))
                    if event.type == "finish-step":
                        self._finished()
                    if clock() >= turn_ends:
                        await _let_others_run()
                        turn_ends = clock() + SLICE_S
        except asyncio.CancelledError:
            self._abort()
            raise
        except AbortedError:
            self._abort()
            return "stop"
        except ContextOverflowError:
            self._write(self.parts.close())
            return "compact"
        except ProviderError as exc:
            self._fail(exc.to_message_error())
            return "stop"
        self._write(self.parts.close())
        if self.parts.finish is None:
            self._fail(
                MessageError(name="api", message="The model's answer ended without a finish.", retryable=True)
            )
            return "stop"
        return await self._run_tools()

    def _finished(self) -> None:
        """``finish-step``: the message takes the step's usage, cost and finish reason."""
        finish = self.parts.finish
        assert finish is not None
        self.message = self.message.model_copy(
            update={
                "tokens": finish.usage,
                "cost": self.message.cost + (finish.cost or 0.0),
                "cost_unknown": self.message.cost_unknown or finish.cost is None,
                "finish": finish.reason,
            }
        )
        self.recorder.message(self.message)
        if self.overflow is not None and not self.message.summary and self.overflow(finish.usage):
            self.needs_compaction = True

    # ------------------------------------------------------------ tools

    async def _run_tools(self) -> Outcome:
        calls = self.parts.tool_calls()
        try:
            refused = await run_tool_calls(self.recorder, self.tools, calls)
        except asyncio.CancelledError:
            self._abort()
            raise
        if refused is not None:
            self._stopped_by_doom_loop(*refused)
            return "stop"
        self._complete()
        if self.needs_compaction:
            return "compact"
        return "continue" if calls else "stop"

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
        self._write(self.parts.close())
        abort_unfinished(self.recorder, self.message.id)
        self.message = self.message.model_copy(
            update={"error": MessageError(name="aborted", message="Stopped by the user.")}
        )
        self._complete()
        self.recorder.flush()
