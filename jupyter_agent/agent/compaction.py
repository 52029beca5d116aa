"""Running a compaction: ask the hidden compaction agent for the anchored summary.

The pure pieces (which tail to keep, how the request looks, what the model sees
afterwards) live in ``context/compaction.py``; this module does the I/O around them:
stream the summary into a ``summary`` assistant message, then continue or stop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from jupyter_agent.agent.processor import StepProcessor
from jupyter_agent.agent.tool_runner import ToolEnv, ToolRunner
from jupyter_agent.context import compaction as ctx
from jupyter_agent.context.overflow import usable
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionCompacted, SessionErrored
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageError,
    MessageWithParts,
    TextPart,
    Tokens,
    UserMessage,
)
from jupyter_agent.prompts import load_prompt

if TYPE_CHECKING:
    from jupyter_agent.agent.loop import AgentLoop
    from jupyter_agent.agent.recorder import Recorder


def create_compaction(
    recorder: Recorder, template: UserMessage, *, auto: bool, overflow: bool
) -> UserMessage:
    """Start a compaction: a user message whose only part is a compaction part."""
    message = UserMessage(
        id=ids.ascending("msg"),
        session_id=template.session_id,
        agent=template.agent,
        model=template.model,
    )
    recorder.message(message)
    recorder.part(
        CompactionPart(
            id=ids.ascending("prt"),
            session_id=message.session_id,
            message_id=message.id,
            auto=auto,
            overflow=overflow,
        )
    )
    return message


class CompactionRunner:
    """Summarises the history before a compaction message, keeping a verbatim tail."""

    def __init__(self, loop: AgentLoop, user: MessageWithParts, part: CompactionPart) -> None:
        self.loop = loop
        self.recorder = loop.recorder
        self.user = user
        self.part = part

    def _before(self) -> list[MessageWithParts]:
        full = self.recorder.history()
        idx = next(i for i, m in enumerate(full) if m.info.id == self.user.info.id)
        return ctx.filter_compacted(full[:idx])

    async def run(self) -> Literal["continue", "stop"]:
        session = self.recorder.session
        self.recorder.update_session(
            session.model_copy(update={"time": session.time.model_copy(update={"compacting": now_ms()})})
        )
        try:
            return await self._run()
        finally:
            session = self.recorder.session
            self.recorder.update_session(
                session.model_copy(update={"time": session.time.model_copy(update={"compacting": None})})
            )

    async def _run(self) -> Literal["continue", "stop"]:
        s = self.loop.settings
        history = self._before()
        budget = s.preserve_recent_tokens or ctx.preserve_recent_budget(
            usable(s.context_limit, s.input_limit, s.output_limit, s.reserved, s.output_token_max)
        )
        tail_id = ctx.select_tail(history, s.tail_turns, budget, self.loop.counter)
        to_summarise = history
        if tail_id is not None:
            to_summarise = [m for m in history if m.info.id < tail_id]
        previous = _previous_summary(history)
        part = self.part.model_copy(update={"tail_start_id": tail_id})
        self.recorder.part(part)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": load_prompt("compaction")},
            *ctx.build_compaction_request(to_summarise, previous),
        ]
        message = AssistantMessage(
            id=ids.ascending("msg"),
            session_id=self.user.info.session_id,
            parent_id=self.user.info.id,
            agent="compaction",
            model=s.model,
            summary=True,
        )
        self.recorder.message(message)
        env = ToolEnv(**{**self.loop.tool_env.__dict__, "allowed": frozenset()})
        runner = ToolRunner(self.recorder, env, "compaction", self.loop.ask)
        self.loop.current_runner = runner
        stream = self.loop.client.stream_with_retry(
            model=s.model,
            messages=messages,
            tools=None,
            api_base=s.api_base,
            api_key=s.api_key,
            max_tokens=None,
            abort=runner.abort,
            on_retry=self.loop._retry_recorder(message),
        )
        processor = StepProcessor(self.recorder, message, runner)
        try:
            outcome = await processor.process(stream)
        finally:
            self.loop.current_runner = None
        done = processor.message
        if outcome == "compact":
            error = MessageError(name="context_overflow", message=ctx.TOO_LARGE)
            self.recorder.message(done.model_copy(update={"error": error}))
            self.recorder.bus.publish(SessionErrored(session_id=message.session_id, error=error))
            return "stop"
        if done.error is not None or outcome != "stop":
            if done.error is None:
                done = done.model_copy(
                    update={
                        "error": MessageError(
                            name="unknown", message="The compaction agent may not call tools."
                        )
                    }
                )
                self.recorder.message(done)
            return "stop"
        # The context after compaction is about the summary's size, not the request's.
        out = done.tokens.output + done.tokens.reasoning
        self.recorder.message(done.model_copy(update={"tokens": Tokens(output=out, total=out)}))
        self.recorder.bus.publish(SessionCompacted(session_id=message.session_id))
        if not self.part.auto:
            return "stop"
        self._follow_up(history)
        return "continue"

    def _follow_up(self, history: list[MessageWithParts]) -> None:
        """Auto: replay the interrupted prompt (overflow) or ask the model to continue."""
        info = self.user.info
        assert isinstance(info, UserMessage)
        replay = None
        if self.part.overflow:
            replay = next(
                (
                    m
                    for m in reversed(history)
                    if isinstance(m.info, UserMessage)
                    and not any(isinstance(p, CompactionPart) for p in m.parts)
                ),
                None,
            )
        message = UserMessage(
            id=ids.ascending("msg"), session_id=info.session_id, agent=info.agent, model=info.model
        )
        self.recorder.message(message)
        if replay is not None:
            for p in replay.parts:
                if isinstance(p, TextPart):
                    self.recorder.part(
                        p.model_copy(update={"id": ids.ascending("prt"), "message_id": message.id})
                    )
            return
        self.recorder.part(
            TextPart(
                id=ids.ascending("prt"),
                session_id=message.session_id,
                message_id=message.id,
                text=ctx.CONTINUE_MESSAGE,
                synthetic=True,
            )
        )


def _previous_summary(history: list[MessageWithParts]) -> str | None:
    for m in reversed(history):
        if isinstance(m.info, AssistantMessage) and m.info.summary and m.info.error is None:
            return "".join(p.text for p in m.parts if isinstance(p, TextPart)) or None
    return None
