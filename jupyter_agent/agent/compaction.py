"""Running a compaction: ask the hidden compaction agent for the anchored summary.

The pure pieces (which tail to keep, how the request looks, what the model sees
afterwards) live in ``context/compaction.py``; this module does the I/O around them:
stream the summary into a ``summary`` assistant message, then continue or stop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from jupyter_agent.agent.processor import StepProcessor
from jupyter_agent.agent.step import StepDeps, model_step
from jupyter_agent.context import compaction as ctx
from jupyter_agent.context.overflow import usable
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.chat import ChatMessage, ChatSystem
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.events import SessionCompacted, SessionErrored
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    FilePart,
    MessageError,
    MessageWithParts,
    TextPart,
    UserMessage,
)
from jupyter_agent.prompts import load_prompt

if TYPE_CHECKING:
    from jupyter_agent.agent.recorder import Recorder


def create_compaction(
    recorder: Recorder,
    template: UserMessage,
    *,
    auto: bool,
    overflow: bool,
    replay_id: str | None = None,
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
            replay_id=replay_id,
        )
    )
    return message


class CompactionRunner:
    """Summarises the history before a compaction message, keeping a verbatim tail."""

    def __init__(
        self, steps: StepDeps, counter: TokenCounter, user: MessageWithParts, part: CompactionPart
    ) -> None:
        self.steps = steps
        self.settings = steps.settings
        self.recorder = steps.recorder
        self.counter = counter
        self.user = user
        self.part = part

    def _before(self) -> list[MessageWithParts]:
        loaded = self.recorder.window()  # holds the previous compaction: the view before is the same
        idx = next(i for i, m in enumerate(loaded) if m.info.id == self.user.info.id)
        return ctx.filter_compacted(loaded[:idx])

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

    def _model_and_prompt(self) -> tuple[str, str]:
        """``compaction.model`` / ``agent.compaction.{model,prompt}`` from config, else defaults."""
        s = self.settings
        configured = s.agents.get("compaction")
        return s.compaction_model(), (configured.prompt if configured else None) or load_prompt("compaction")

    async def _run(self) -> Literal["continue", "stop"]:
        s = self.settings
        history, previous, replay = ctx.split_for_summary(self._before(), self.part.replay_id)
        budget = s.compaction.preserve_recent_tokens or ctx.preserve_recent_budget(usable(s.model))
        tail_id = ctx.select_tail(history, s.compaction.tail_turns, budget, self.counter)
        cut = next((i for i, m in enumerate(history) if m.info.id == tail_id), len(history))
        update = {"tail_start_id": tail_id, "replay_id": replay.info.id if replay else None}
        self.recorder.part(self.part.model_copy(update=update))
        model, prompt = self._model_and_prompt()
        messages: list[ChatMessage] = [
            ChatSystem(role="system", content=prompt),
            *ctx.build_compaction_request(history[:cut], previous, model=model),
        ]
        message = AssistantMessage(
            id=ids.ascending("msg"),
            session_id=self.user.info.session_id,
            parent_id=self.user.info.id,
            agent="compaction",
            model=model,
            summary=True,
        )
        self.recorder.message(message)
        # no tools: a call the model makes anyway is recorded as an error, and the summary fails
        runner = self.steps.tool_runner("compaction", frozenset())
        processor = StepProcessor(self.recorder, message, runner)
        try:
            outcome = await model_step(
                self.steps, processor, messages, options=self.steps.options(model, "compaction")
            )
        except BaseException:
            self._failed(processor.message, None)
            raise
        done = processor.message
        if outcome == "compact":
            self._failed(done, MessageError(name="context_overflow", message=ctx.TOO_LARGE))
            return "stop"
        if done.error is not None or outcome != "stop":
            tools = MessageError(name="unknown", message="The compaction agent may not call tools.")
            self._failed(done, tools if done.error is None else None)
            return "stop"
        self.recorder.bus.publish(SessionCompacted(session_id=message.session_id))
        if not self.part.auto:
            return "stop"
        self._follow_up(replay, note=self.part.replay_id is not None and replay is None)
        return "continue"

    def _failed(self, done: AssistantMessage, error: MessageError | None) -> None:
        """A failed summary keeps its error and ``finish = "error"``: never re-run, never a cut."""
        update: dict[str, Any] = {"finish": "error"}
        if error is not None:
            update["error"] = error
            update["time"] = done.time.model_copy(update={"completed": done.time.completed or now_ms()})
        failed = done.model_copy(update=update)
        self.recorder.message(failed)
        if error is not None:
            self.recorder.bus.publish(SessionErrored(session_id=done.session_id, error=error))

    def _follow_up(self, replay: MessageWithParts | None, *, note: bool) -> None:
        """Auto: re-send the refused prompt once (overflow) or ask the model to continue."""
        info = self.user.info
        assert isinstance(info, UserMessage)
        agent, model = info.agent, info.model
        if replay is not None and isinstance(replay.info, UserMessage):
            agent, model = replay.info.agent, replay.info.model
        message = UserMessage(id=ids.ascending("msg"), session_id=info.session_id, agent=agent, model=model)
        self.recorder.message(message)
        if replay is not None:
            for p in replay.parts:
                if isinstance(p, TextPart) and not p.ignored and p.text.strip():
                    self.recorder.part(
                        p.model_copy(update={"id": ids.ascending("prt"), "message_id": message.id})
                    )
                elif isinstance(p, FilePart):
                    self.recorder.part(
                        TextPart(
                            id=ids.ascending("prt"),
                            session_id=message.session_id,
                            message_id=message.id,
                            text=f"[Attached {p.mime}: {p.filename or 'file'}]",
                            synthetic=True,
                        )
                    )
            return
        text = f"{ctx.TOO_LARGE_MEDIA_NOTE}\n\n{ctx.CONTINUE_MESSAGE}" if note else ctx.CONTINUE_MESSAGE
        self.recorder.part(
            TextPart(
                id=ids.ascending("prt"),
                session_id=message.session_id,
                message_id=message.id,
                text=text,
                synthetic=True,
            )
        )
