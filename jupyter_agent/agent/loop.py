"""The agent loop (SPEC "Loop"): subtask → compaction → overflow → normal step, until done.

Everything the loop decides is read from the messages (state = replay of messages), so
a loop can resume a stored session after a kernel restart exactly where it stopped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.agent import oversize
from jupyter_agent.agent.agents import AgentInfo, get_agent
from jupyter_agent.agent.budget import Budget, crossed
from jupyter_agent.agent.budget import stop as stop_for_budget
from jupyter_agent.agent.compaction import CompactionRunner, create_compaction
from jupyter_agent.agent.max_steps import fail_max_steps, max_steps_message, refuse_step
from jupyter_agent.agent.processor import Outcome, StepProcessor
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.agent.secrets import redact
from jupyter_agent.agent.tool_runner import ToolEnv, ToolRunner
from jupyter_agent.context.overflow import is_overflow, max_output
from jupyter_agent.context.prune import select_prune
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    SubtaskPart,
    Tokens,
    ToolPart,
    UserMessage,
)
from jupyter_agent.prompts import load_prompt
from jupyter_agent.tools.base import AskFn

log = logging.getLogger(__name__)

DEFAULT_MAX_STEPS = 100


@dataclass
class LoopSettings:
    """Per-run knobs resolved from config, the model and the caller."""

    model: str
    system: Callable[[AgentInfo], str]
    """Builds the system prompt for an agent (agent prompt, environment, instructions)."""
    context_limit: int
    input_limit: int | None
    output_limit: int | None
    auto_compact: bool = True
    prune: bool = True
    reserved: int | None = None
    output_token_max: int = 32_000
    tail_turns: int = 2
    preserve_recent_tokens: int | None = None
    max_steps: int | None = None
    supports_vision: bool = False
    media_in_tool_results: bool = False
    api_base: str | None = None
    api_key: str | None = None
    agent_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    compaction_model: str | None = None
    options: Callable[[str, str], dict[str, Any]] | None = None
    """litellm call arguments for (model, agent): ``models.<id>.options`` + ``agent.<name>.options``."""
    budget: Budget | None = None


class AgentLoop:
    """Runs one session until the model is done, stopped, or fails."""

    def __init__(
        self,
        recorder: Recorder,
        client: Any,
        tool_env: ToolEnv,
        settings: LoopSettings,
        ask: AskFn,
        counter: TokenCounter | None = None,
    ) -> None:
        self.recorder = recorder
        self.client = client
        self.tool_env = tool_env
        self.settings = settings
        self.ask = ask
        self.counter = counter or TokenCounter()
        self.current_runner: ToolRunner | None = None
        self._last_finish: str | None = None
        self._last_error: Any = None
        self._last_message: AssistantMessage | None = None
        self._system: dict[str, str] = {}
        self._builder: RequestBuilder | None = None
        """System prompt per agent, built once per run (it reads files and the kernel)."""

    # ------------------------------------------------------------ state

    def _scan(self) -> tuple[Any, Any, Any]:
        """Last user, last assistant, last finished assistant — by id (creation order).

        The recorder's window is id-ordered, so walking back from the end finds them
        after a few messages (the compaction tail reorders only what the model sees).
        """
        last_user = last_assistant = last_finished = None
        for m in reversed(self.recorder.window()):
            info = m.info
            if isinstance(info, UserMessage):
                last_user = last_user or m
            elif isinstance(info, AssistantMessage):
                last_assistant = last_assistant or m
                if info.finish and last_finished is None:
                    last_finished = m
            if last_user is not None and last_finished is not None:
                break
        return last_user, last_assistant, last_finished

    def _pending_task(self, after: str) -> CompactionPart | SubtaskPart | None:
        """A compaction or subtask part in user messages newer than the last finished answer.

        One that already has an answer (even a failed summary) is done: never re-run it.
        """
        answered: set[str] = set()
        for m in reversed(self.recorder.window()):
            if m.info.id <= after:
                return None
            if isinstance(m.info, AssistantMessage):
                answered.add(m.info.parent_id)
            elif m.info.id not in answered:
                for p in m.parts:
                    if isinstance(p, (CompactionPart, SubtaskPart)):
                        return p
        return None

    def _done(self, last_user: Any, last_assistant: Any) -> bool:
        if last_assistant is None or last_user is None:
            return False
        info = last_assistant.info
        if last_user.info.id > info.id:
            return False
        if info.error is not None:
            return True
        unfinished = any(
            isinstance(p, ToolPart) and p.state.status in ("pending", "running") for p in last_assistant.parts
        )
        return (
            bool(info.finish)
            and info.finish not in ("tool-calls", "unknown")
            and not unfinished
            and last_user.info.id < info.id
        )

    # ------------------------------------------------------------ run

    async def run(self) -> None:
        """Loop until done; prune afterwards (also after an error, as OpenCode does)."""
        step = 0
        while True:
            last_user, last_assistant, last_finished = self._scan()
            if last_user is None:
                return
            if self._done(last_user, last_assistant):
                break
            step += 1  # every iteration counts, compaction and subtask included (SPEC "Loop")
            task = self._pending_task(last_finished.info.id if last_finished else "")
            if isinstance(task, SubtaskPart):
                await self._run_subtask(task, last_user)
                continue
            if isinstance(task, CompactionPart):
                outcome = await CompactionRunner(self, last_user, task).run()
                if outcome == "stop":
                    break
                continue
            if (
                last_finished is not None
                and not last_finished.info.summary
                and self._overflow(last_finished.info)
            ):
                create_compaction(self.recorder, last_user.info, auto=True, overflow=False)
                continue
            new_prompt = last_finished is None or last_finished.info.id < last_user.info.id
            size = oversize.too_large(self, last_user) if new_prompt else None
            if size is not None:
                oversize.refuse(self, last_user, size)
                break
            cap = self._max_steps(last_user.info)
            if step > cap + 1:  # the last step overflowed and was retried once already
                self._last_error = refuse_step(self.recorder, last_user.info, self.settings.model, cap)
                break
            if new_prompt and self._over_budget(last_user, None):
                break
            result = await self._step(step, last_user, last_finished)
            if result == "continue" and self._over_budget(last_user, self._last_message):
                break
            if result == "compact":
                # overflow = the step never finished (provider said "too long"): a new
                # prompt is summarised without it and re-sent once after the summary
                overflow = self._last_finish is None
                if overflow and new_prompt and _follows_summary(self.recorder.window(), last_user.info.id):
                    # it was just replayed after a summary and still does not fit
                    size = oversize.message_tokens(last_user, self.counter)
                    oversize.refuse(self, last_user, size, self._last_message)
                    break
                replay_id = last_user.info.id if overflow and new_prompt else None
                create_compaction(
                    self.recorder, last_user.info, auto=True, overflow=overflow, replay_id=replay_id
                )
                continue
            if result == "stop":
                break
        self.recorder.flush()
        if self.settings.prune:
            self.prune()

    def _overflow(self, info: AssistantMessage) -> bool:
        return self._overflow_tokens(info.tokens)

    def _overflow_tokens(self, tokens: Tokens) -> bool:
        s = self.settings
        return is_overflow(
            tokens,
            context=s.context_limit,
            input_limit=s.input_limit,
            output_limit=s.output_limit,
            reserved=s.reserved,
            auto=s.auto_compact,
            output_token_max=s.output_token_max,
        )

    def prune(self) -> int:
        """Clear old tool outputs (SPEC "Prune"); the recorder writes ``time.compacted``."""
        part_ids = select_prune(self.recorder.window(), self.counter)
        if not part_ids:
            return 0
        self.recorder.mark_compacted(part_ids, now_ms())
        return len(part_ids)

    def _max_steps(self, user: UserMessage) -> int:
        agent = get_agent(user.agent, self.settings.agent_overrides.get(user.agent))
        return agent.steps or self.settings.max_steps or DEFAULT_MAX_STEPS

    async def _step(self, step: int, last_user: Any, last_finished: Any) -> Outcome:
        user: UserMessage = last_user.info
        agent = get_agent(user.agent, self.settings.agent_overrides.get(user.agent))
        model = user.model or agent.model or self.settings.model
        message = AssistantMessage(
            id=ids.ascending("msg"),
            session_id=user.session_id,
            parent_id=user.id,
            agent=agent.name,
            model=model,
        )
        self.recorder.message(message)
        max_steps = self._max_steps(user)
        last_step = step >= max_steps
        after = last_finished.info.id if step > 1 and last_finished is not None else None
        messages = self.build_request(agent, step, model, remind_after=after)
        if last_step:
            messages = [*messages, {"role": "assistant", "content": load_prompt("max_steps")}]
        allowed = agent.tools
        env = ToolEnv(**{**self.tool_env.__dict__, "allowed": allowed})
        runner = ToolRunner(self.recorder, env, agent.name, self.ask)
        self.current_runner = runner
        tools = [t for t in env.registry.specs() if allowed is None or t["function"]["name"] in allowed]
        extra: dict[str, Any] = dict(self.call_options(model, agent.name) or {})
        if last_step:
            # the last request forbids tools (still declared so past tool calls stay valid)
            runner.refuse = max_steps_message(max_steps)
            if tools:
                extra.update(tool_choice="none", drop_params=True)
        stream = self.client.stream_with_retry(
            model=model,
            messages=messages,
            tools=tools or None,
            api_base=self.settings.api_base,
            api_key=self.settings.api_key,
            max_tokens=max_output(self.settings.output_limit, self.settings.output_token_max),
            abort=runner.abort,
            on_retry=self._retry_recorder(message),
            **({"extra": extra} if extra else {}),
        )
        processor = StepProcessor(self.recorder, message, runner, overflow=self._overflow_tokens)
        try:
            outcome = await processor.process(stream)
        finally:
            self.current_runner = None
        self._last_finish = processor.message.finish
        self._last_error = processor.message.error
        self._last_message = processor.message
        if runner.refused and self._last_error is None:
            self._last_error = fail_max_steps(self.recorder, processor.message, max_steps)
            return "stop"
        return outcome

    def _retry_recorder(self, message: AssistantMessage) -> Callable[[int, Any, int], None]:
        from jupyter_agent.core.messages import RetryError, RetryPart

        def on_retry(attempt: int, error: Any, next_ms: int) -> None:
            self.recorder.part(
                RetryPart(
                    id=ids.ascending("prt"),
                    session_id=message.session_id,
                    message_id=message.id,
                    attempt=attempt,
                    error=RetryError(message=redact(str(error)), status=getattr(error, "status", None)),
                    next=now_ms() + next_ms,
                )
            )

        return on_retry

    def _over_budget(self, user: Any, answer: AssistantMessage | None) -> bool:
        """Stop after the step that crossed a budget (or before a prompt when none is left)."""
        budget = self.settings.budget
        if not budget:
            return False
        text = crossed(budget, self.recorder.window(), user.info.id, self.recorder.spent())
        if text is None:
            return False
        entry = self.recorder.find(answer.id) if answer is not None else None
        if entry is not None and isinstance(entry.info, AssistantMessage):
            answer = entry.info
        stop_for_budget(self, user, text, answer)
        return True

    def call_options(self, model: str, agent: str) -> dict[str, Any] | None:
        return self.settings.options(model, agent) if self.settings.options else None

    def build_request(
        self, agent: AgentInfo, step: int, model: str, remind_after: str | None = None
    ) -> list[dict[str, Any]]:
        """System prompt + visible history in the provider's shape (incremental per step)."""
        if self._builder is None or self._builder.model != model:
            s = self.settings
            self._builder = RequestBuilder(self.recorder, model, s.supports_vision, s.media_in_tool_results)
        if agent.name not in self._system:
            self._system[agent.name] = self.settings.system(agent)
        return self._builder.build(agent, self._system[agent.name], remind_after)

    async def _run_subtask(self, task: SubtaskPart, last_user: Any) -> None:
        runner = self.tool_env.extra.get("subtask_runner")
        if runner is None:
            raise RuntimeError("sub-agents are not available in this runtime")
        await runner(self, task, last_user.info)


def _follows_summary(history: list[Any], user_id: str) -> bool:
    """True for a prompt re-sent right after a successful summary (an overflow replay)."""
    before = None
    for m in history:
        if m.info.id >= user_id:
            break
        before = m
    info = before.info if before is not None else None
    return isinstance(info, AssistantMessage) and info.summary and info.error is None
