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
from jupyter_agent.agent.ports import ModelClient, PermissionAsker
from jupyter_agent.agent.processor import Outcome, StepProcessor
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.agent.retrying import MAX_RETRIES
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.step import StepDeps, model_step
from jupyter_agent.agent.subtask import run_subtask
from jupyter_agent.agent.tool_runner import ToolEnv
from jupyter_agent.context.overflow import OUTPUT_TOKEN_MAX, is_overflow
from jupyter_agent.context.prune import select_prune
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.chat import ChatMessage
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageError,
    MessageWithParts,
    SubtaskPart,
    Tokens,
    ToolPart,
    UserMessage,
)
from jupyter_agent.prompts import load_prompt

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
    output_token_max: int = OUTPUT_TOKEN_MAX
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
    model_locked: bool = False
    """The admin's file locks ``model``: a prompt's own model (a flag, an older message) is not used."""
    retries: int = MAX_RETRIES
    """How often a failed model call is tried again (``retries``)."""


class AgentLoop:
    """Runs one session until the model is done, stopped, or fails."""

    def __init__(
        self,
        recorder: Recorder,
        client: ModelClient,
        tool_env: ToolEnv,
        settings: LoopSettings,
        asker: PermissionAsker,
        counter: TokenCounter | None = None,
        run: RunHandle | None = None,
    ) -> None:
        self.recorder = recorder
        self.client = client
        self.tool_env = tool_env
        self.settings = settings
        self.counter = counter or TokenCounter()
        self.steps = StepDeps(recorder, client, settings, tool_env, asker, run or RunHandle())
        """What each model step (and compaction) of this run uses."""
        self._last_finish: str | None = None
        self._last_error: MessageError | None = None
        self._last_message: AssistantMessage | None = None
        self._system: dict[str, str] = {}
        self._builder: RequestBuilder | None = None
        """System prompt per agent, built once per run (it reads files and the kernel)."""

    # ------------------------------------------------------------ state

    def _scan(self) -> tuple[MessageWithParts | None, MessageWithParts | None, MessageWithParts | None]:
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

    def _done(self, last_user: MessageWithParts | None, last_assistant: MessageWithParts | None) -> bool:
        if last_assistant is None or last_user is None:
            return False
        info = _answer(last_assistant)
        if last_user.info.id > info.id:
            return False
        if info.error is not None:
            return True
        unfinished = any(
            isinstance(p, ToolPart) and p.state.status in ("pending", "running") for p in last_assistant.parts
        )
        return (
            bool(info.finish)
            and info.finish != "tool-calls"
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
            prompt = _prompt(last_user)
            finished = _answer(last_finished) if last_finished is not None else None
            if self._done(last_user, last_assistant):
                break
            step += 1  # every iteration counts, compaction and subtask included (SPEC "Loop")
            task = self._pending_task(finished.id if finished else "")
            if isinstance(task, SubtaskPart):
                await self._run_subtask(task, last_user)
                continue
            if isinstance(task, CompactionPart):
                outcome = await CompactionRunner(self.steps, self.counter, last_user, task).run()
                if outcome == "stop":
                    break
                continue
            if finished is not None and not finished.summary and self._overflow(finished):
                create_compaction(self.recorder, prompt, auto=True, overflow=False)
                continue
            new_prompt = finished is None or finished.id < prompt.id
            size = oversize.too_large(self, last_user) if new_prompt else None
            if size is not None:
                oversize.refuse(self, last_user, size)
                break
            cap = self._max_steps(prompt)
            if step > cap + 1:  # the last step overflowed and was retried once already
                self._last_error = refuse_step(self.recorder, prompt, self.settings.model, cap)
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
                if overflow and new_prompt and _follows_summary(self.recorder.window(), prompt.id):
                    # it was just replayed after a summary and still does not fit
                    size = oversize.message_tokens(last_user, self.counter)
                    oversize.refuse(self, last_user, size, self._last_message)
                    break
                replay_id = prompt.id if overflow and new_prompt else None
                create_compaction(self.recorder, prompt, auto=True, overflow=overflow, replay_id=replay_id)
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

    async def _step(
        self, step: int, last_user: MessageWithParts, last_finished: MessageWithParts | None
    ) -> Outcome:
        user = _prompt(last_user)
        agent = get_agent(user.agent, self.settings.agent_overrides.get(user.agent))
        model = (None if self.settings.model_locked else user.model) or agent.model or self.settings.model
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
        # user messages newer than the last answer arrived mid-task (a reminder); after a
        # summary the newer one is the replayed prompt, sent as written (as OpenCode 1.18)
        after = None
        if step > 1 and last_finished is not None and not _answer(last_finished).summary:
            after = last_finished.info.id
        messages = self.build_request(agent, step, model, remind_after=after)
        if last_step:
            messages = [*messages, {"role": "assistant", "content": load_prompt("max_steps")}]
        allowed = agent.tools
        runner = self.steps.tool_runner(agent.name, allowed)
        specs = self.tool_env.registry.specs()
        tools = [t for t in specs if allowed is None or t["function"]["name"] in allowed]
        extra: dict[str, Any] = dict(self.steps.options(model, agent.name) or {})
        if last_step:
            # the last request forbids tools (still declared so past tool calls stay valid)
            runner.refuse = max_steps_message(max_steps)
            if tools:
                extra.update(tool_choice="none", drop_params=True)
        processor = StepProcessor(self.recorder, message, runner, overflow=self._overflow_tokens)
        outcome = await model_step(self.steps, processor, messages, tools=tools, options=extra)
        self._last_finish = processor.message.finish
        self._last_error = processor.message.error
        self._last_message = processor.message
        if runner.refused and self._last_error is None:
            self._last_error = fail_max_steps(self.recorder, processor.message, max_steps)
            return "stop"
        return outcome

    def _over_budget(self, user: MessageWithParts, answer: AssistantMessage | None) -> bool:
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

    def build_request(
        self, agent: AgentInfo, step: int, model: str, remind_after: str | None = None
    ) -> list[ChatMessage]:
        """System prompt + visible history in the provider's shape (incremental per step)."""
        if self._builder is None or self._builder.model != model:
            s = self.settings
            self._builder = RequestBuilder(self.recorder, model, s.supports_vision, s.media_in_tool_results)
        if agent.name not in self._system:
            self._system[agent.name] = self.settings.system(agent)
        return self._builder.build(agent, self._system[agent.name], remind_after)

    async def _run_subtask(self, task: SubtaskPart, last_user: MessageWithParts) -> None:
        run_child = self.tool_env.services.run_child
        if run_child is None:
            raise RuntimeError("sub-agents are not available in this runtime")
        await run_subtask(self.recorder, self.settings.model, task, _prompt(last_user), run_child)


def _follows_summary(history: list[MessageWithParts], user_id: str) -> bool:
    """True for a prompt re-sent right after a successful summary (an overflow replay)."""
    before = None
    for m in history:
        if m.info.id >= user_id:
            break
        before = m
    info = before.info if before is not None else None
    return isinstance(info, AssistantMessage) and info.summary and info.error is None


def _prompt(entry: MessageWithParts) -> UserMessage:
    """The user message of an entry ``_scan`` found as one (typed for the checks below)."""
    if not isinstance(entry.info, UserMessage):
        raise TypeError(f"{entry.info.id} is not a user message")
    return entry.info


def _answer(entry: MessageWithParts) -> AssistantMessage:
    """The assistant message of an entry ``_scan`` found as one."""
    if not isinstance(entry.info, AssistantMessage):
        raise TypeError(f"{entry.info.id} is not an assistant message")
    return entry.info
