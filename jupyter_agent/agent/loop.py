"""The agent loop (SPEC "Loop"): subtask → compaction → overflow → normal step, until done.

Everything the loop decides is read from the messages (state = replay of messages), so
a loop can resume a stored session after a kernel restart exactly where it stopped.
What to do next is a value (``decision.py``); ``run`` matches on it and does it.
"""

from __future__ import annotations

import logging
from typing import Any, assert_never

from jupyter_agent.agent.budget import budget_error
from jupyter_agent.agent.compaction import CompactionRunner, create_compaction
from jupyter_agent.agent.decision import (
    AutoCompact,
    Decision,
    Done,
    Ending,
    Idle,
    Next,
    OverBudget,
    Refuse,
    Rules,
    RunCompaction,
    RunSubtask,
    Step,
    StepCapReached,
    after_step,
    decide,
)
from jupyter_agent.agent.ending import end_with_error, error_answer
from jupyter_agent.agent.loop_settings import LoopSettings
from jupyter_agent.agent.max_steps import max_steps_error, max_steps_message
from jupyter_agent.agent.oversize import refusal, unsent
from jupyter_agent.agent.ports import ModelClient, PermissionAsker
from jupyter_agent.agent.processor import StepProcessor
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.agent.step import StepDeps, model_step
from jupyter_agent.agent.subtask import run_subtask
from jupyter_agent.agent.tool_runner import ToolEnv
from jupyter_agent.context.overflow import is_overflow, usable
from jupyter_agent.context.prune import select_prune
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core import ids
from jupyter_agent.core.agents import AgentInfo, offered_tools
from jupyter_agent.core.chat import ChatMessage
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import AssistantMessage, MessageError, SubtaskPart, Tokens, UserMessage
from jupyter_agent.prompts import load_prompt

log = logging.getLogger(__name__)


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
        self.rules = self._rules()
        """What the decisions read from the settings (``decision.py``)."""
        self._system: dict[str, str] = {}
        """System prompt per agent, built once per run (it reads files and the kernel)."""
        self._builder: RequestBuilder | None = None

    # ------------------------------------------------------------ settings

    def _rules(self) -> Rules:
        """The one place the loop reads the model's window, the step cap and the budget."""
        s = self.settings

        def overflow(tokens: Tokens) -> bool:
            return is_overflow(tokens, s.model, auto=s.compaction.auto)

        return Rules(
            context=s.model.context,
            usable=usable(s.model),
            overflow=overflow,
            agent=s.agent,
            max_steps=s.max_steps,
            counter=self.counter,
            budget=s.budget or None,
            spent=self.recorder.spent,
        )

    # ------------------------------------------------------------ run

    async def run(self) -> None:
        """Loop until done; prune afterwards (also after an error, as OpenCode does).

        Each iteration decides from the messages; a step's own outcome (compact, a budget
        crossed, the cap) is the next decision, taken without reading the window again.
        """
        step = 0
        decision: Decision
        follow: Decision | None = None
        while True:
            if follow is None:
                step += 1  # every iteration counts, compaction and subtask included (SPEC "Loop")
                decision = decide(self.recorder.window(), step, self.rules)
            else:
                decision, follow = follow, None
            match decision:
                case Idle():
                    return
                case Done():
                    break
                case Next():
                    pass
                case RunSubtask(task=task, prompt=prompt):
                    await self._run_subtask(task, prompt)
                case RunCompaction(task=task, user=user):
                    if await CompactionRunner(self.steps, self.counter, user, task).run() == "stop":
                        break
                case AutoCompact(prompt=prompt, overflow=overflow, replay_id=replay_id):
                    create_compaction(
                        self.recorder, prompt, auto=True, overflow=overflow, replay_id=replay_id
                    )
                case Step():
                    follow = await self._step(decision)
                case Refuse() | StepCapReached() | OverBudget():
                    self._end(decision)
                    break
                case _:
                    assert_never(decision)
        self.recorder.flush()
        if self.settings.compaction.prune:
            self.prune()

    def _end(self, ending: Ending) -> None:
        """The one place a run ends with an error the user reads: on the answer in progress,
        or on a fresh answer when no step ran."""
        answer = ending.answer or error_answer(ending.prompt, self.settings.model.name)
        error: MessageError
        if isinstance(ending, Refuse):
            for part in unsent(ending.user):  # kept for the record, never sent
                self.recorder.part(part)
            answer = answer.model_copy(update={"finish": "error"})
            error = refusal(self.settings.model.name, ending.size, self.rules.context, self.rules.usable)
        elif isinstance(ending, StepCapReached):
            error = max_steps_error(ending.cap)
        else:
            error = budget_error(ending.text)
        end_with_error(self.recorder, answer, error)

    def prune(self) -> int:
        """Clear old tool outputs (SPEC "Prune"); the recorder writes ``time.compacted``."""
        part_ids = select_prune(self.recorder.window(), self.counter)
        if not part_ids:
            return 0
        self.recorder.mark_compacted(part_ids, now_ms())
        return len(part_ids)

    async def _step(self, step: Step) -> Decision:
        """One model call and its tools; returns what its outcome leads to."""
        user, agent = step.prompt, step.agent
        model = self.settings.step_model(user, agent)
        message = AssistantMessage(
            id=ids.ascending("msg"),
            session_id=user.session_id,
            parent_id=user.id,
            agent=agent.name,
            model=model,
        )
        self.recorder.message(message)
        messages = self.build_request(agent, step.number, model, remind_after=step.remind_after)
        if step.last:
            messages = [*messages, {"role": "assistant", "content": load_prompt("max_steps")}]
        registry = self.tool_env.registry
        child = self.recorder.session.parent_id is not None
        allowed = offered_tools(agent, registry.names(), child=child)
        runner = self.steps.tool_runner(agent.name, allowed)
        tools = [t for t in registry.specs() if allowed is None or t["function"]["name"] in allowed]
        extra: dict[str, Any] = dict(self.steps.options(model, agent.name) or {})
        if tools:
            extra.setdefault("tool_choice", "auto")  # as OpenCode sends it; a configured choice stays
        if step.last:
            # the last request forbids tools (still declared so past tool calls stay valid)
            runner.refuse = max_steps_message(step.cap)
            if tools:
                extra.update(tool_choice="none", drop_params=True)
        processor = StepProcessor(self.recorder, message, runner, overflow=self.rules.overflow)
        outcome = await model_step(self.steps, processor, messages, tools=tools, options=extra)
        window = self.recorder.window()
        return after_step(step, outcome, processor.message, runner.refused > 0, window, self.rules)

    def build_request(
        self, agent: AgentInfo, step: int, model: str, remind_after: str | None = None
    ) -> list[ChatMessage]:
        """System prompt + visible history in the provider's shape (incremental per step)."""
        if self._builder is None or self._builder.model != model:
            m = self.settings.model
            self._builder = RequestBuilder(self.recorder, model, m.vision, m.media_in_tool_results)
        if agent.name not in self._system:
            self._system[agent.name] = self.settings.system(agent)
        return self._builder.build(agent, self._system[agent.name], remind_after)

    async def _run_subtask(self, task: SubtaskPart, prompt: UserMessage) -> None:
        run_child = self.tool_env.services.run_child
        if run_child is None:
            raise RuntimeError("sub-agents are not available in this runtime")
        await run_subtask(self.recorder, self.settings.model.name, task, prompt, run_child)
