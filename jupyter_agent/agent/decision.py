"""What the loop does next (SPEC "Loop"), decided from the messages and the run's rules alone.

``decide`` reads the window at the start of an iteration, ``after_step`` what a model step
led to; both return a value and write nothing. ``AgentLoop.run`` matches on it and does
what it says, and records an ending (``Refuse``, ``StepCapReached``, ``OverBudget``) in
one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from jupyter_agent.agent.budget import Budget, crossed
from jupyter_agent.agent.oversize import too_large
from jupyter_agent.agent.processor import Outcome
from jupyter_agent.context.compaction import message_tokens
from jupyter_agent.context.latest import Latest, answer_of, follows_summary, latest, pending_task, user_of
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core.agents import AgentInfo
from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    SubtaskPart,
    Tokens,
    ToolPart,
    UserMessage,
)


@dataclass(frozen=True)
class Rules:
    """What the decisions read besides the messages, resolved once per run from the settings."""

    context: int
    """The model's context window in tokens (0: unknown)."""
    usable: int
    """Tokens one request may use (0: unknown)."""
    overflow: Callable[[Tokens], bool]
    """An answer's usage filled the window (SPEC "Overflow check")."""
    agent: Callable[[str], AgentInfo]
    """An agent by name, with its config overrides."""
    max_steps: int
    """The step cap of an agent without its own ``steps``."""
    counter: TokenCounter
    budget: Budget | None = None
    spent: Callable[[], CostTotal] = CostTotal
    """What the whole session cost so far (read only when a budget is set)."""

    def over_budget(self, window: list[MessageWithParts], prompt: UserMessage) -> str | None:
        """Why the run must stop now (a budget is used up), or None."""
        return crossed(self.budget, window, prompt.id, self.spent()) if self.budget else None


# ------------------------------------------------------------------ decisions


@dataclass(frozen=True)
class Idle:
    """The session has no prompt: nothing to run (nor to prune)."""


@dataclass(frozen=True)
class Done:
    """The last answer is final, or the step or compaction said stop."""


@dataclass(frozen=True)
class Next:
    """A step ran its tools: decide again."""


@dataclass(frozen=True)
class RunSubtask:
    """An ``@agent`` prompt waits: run it in a child session."""

    task: SubtaskPart
    prompt: UserMessage


@dataclass(frozen=True)
class RunCompaction:
    """A compaction waits (asked for, or started by an overflow): summarise."""

    task: CompactionPart
    user: MessageWithParts


@dataclass(frozen=True)
class AutoCompact:
    """The context is full: start a compaction (``overflow``: the step never finished)."""

    prompt: UserMessage
    overflow: bool = False
    replay_id: str | None = None
    """The prompt to re-send once after the summary (it overflowed before any answer)."""


@dataclass(frozen=True)
class Step:
    """Ask the model: step ``number`` of ``cap`` for ``user``'s prompt, as ``agent``."""

    user: MessageWithParts
    agent: AgentInfo
    number: int
    cap: int
    new_prompt: bool
    """No finished answer follows the prompt yet."""
    remind_after: str | None = None
    """User texts newer than this answer arrived mid-task (SPEC "Loop": the reminder)."""

    @property
    def prompt(self) -> UserMessage:
        return user_of(self.user)

    @property
    def last(self) -> bool:
        """The last allowed step: tools are forbidden."""
        return self.number >= self.cap


@dataclass(frozen=True)
class Refuse:
    """The prompt alone does not fit the window: never send it (``oversize.py``)."""

    user: MessageWithParts
    size: int
    answer: AssistantMessage | None = None

    @property
    def prompt(self) -> UserMessage:
        return user_of(self.user)


@dataclass(frozen=True)
class StepCapReached:
    """The step cap is used up (``max_steps.py``)."""

    prompt: UserMessage
    cap: int
    answer: AssistantMessage | None = None


@dataclass(frozen=True)
class OverBudget:
    """A spending limit is reached (``budget.py``); ``text`` says which and how to go on."""

    prompt: UserMessage
    text: str
    answer: AssistantMessage | None = None


Ending = Refuse | StepCapReached | OverBudget
"""The run ends with an error the user reads, on ``answer`` or on a fresh one when no step ran."""
Decision = Idle | Done | Next | RunSubtask | RunCompaction | AutoCompact | Step | Ending


# ------------------------------------------------------------------ deciding


def done(last: Latest) -> bool:
    """The last answer is newer than the last prompt and final: an error, or a finish other
    than tool calls with no tool left to run."""
    if last.assistant is None or last.user is None:
        return False
    info = answer_of(last.assistant)
    if last.user.info.id > info.id:
        return False
    if info.error is not None:
        return True
    unfinished = any(
        isinstance(p, ToolPart) and p.state.status in ("pending", "running") for p in last.assistant.parts
    )
    return (
        bool(info.finish) and info.finish != "tool-calls" and not unfinished and last.user.info.id < info.id
    )


def decide(window: list[MessageWithParts], step: int, rules: Rules) -> Decision:
    """Iteration ``step`` (every one counts, compaction and subtask included): in order,
    done → pending subtask → pending compaction → overflow → a prompt too large → the
    step cap → the budget → a model step."""
    last = latest(window)
    if last.user is None:
        return Idle()
    if done(last):
        return Done()
    user, prompt = last.user, user_of(last.user)
    finished = answer_of(last.finished) if last.finished is not None else None
    task = pending_task(window, finished.id if finished else "")
    if isinstance(task, SubtaskPart):
        return RunSubtask(task, prompt)
    if isinstance(task, CompactionPart):
        return RunCompaction(task, user)
    if finished is not None and not finished.summary and rules.overflow(finished.tokens):
        return AutoCompact(prompt)
    new_prompt = finished is None or finished.id < prompt.id
    size = too_large(user, rules.usable, rules.counter) if new_prompt else None
    if size is not None:
        return Refuse(user, size)
    agent = rules.agent(prompt.agent)
    cap = agent.steps or rules.max_steps
    if step > cap + 1:  # the last step overflowed and was retried once already
        return StepCapReached(prompt, cap)
    text = rules.over_budget(window, prompt) if new_prompt else None
    if text is not None:
        return OverBudget(prompt, text)
    # after a summary the newer user message is the replayed prompt, sent as written (as OpenCode 1.18)
    remind = step > 1 and finished is not None and not finished.summary
    return Step(user, agent, step, cap, new_prompt, finished.id if remind and finished else None)


def after_step(
    step: Step,
    outcome: Outcome,
    answer: AssistantMessage,
    refused: bool,
    window: list[MessageWithParts],
    rules: Rules,
) -> Decision:
    """What the step's ``outcome`` leads to; ``refused``: a tool call on the last step was not run."""
    prompt = step.prompt
    if refused and answer.error is None:
        return StepCapReached(prompt, step.cap, answer)
    if outcome == "continue":
        text = rules.over_budget(window, prompt)
        return Next() if text is None else OverBudget(prompt, text, _stored(window, answer))
    if outcome == "compact":
        # overflow = the step never finished (provider said "too long"): a new prompt is
        # summarised without it and re-sent once after the summary
        overflow = answer.finish is None
        if overflow and step.new_prompt and follows_summary(window, prompt.id):
            # it was just replayed after a summary and still does not fit
            return Refuse(step.user, message_tokens(step.user, rules.counter), answer)
        replay_id = prompt.id if overflow and step.new_prompt else None
        return AutoCompact(prompt, overflow=overflow, replay_id=replay_id)
    return Done()


def _stored(window: list[MessageWithParts], answer: AssistantMessage) -> AssistantMessage:
    """The answer as stored (redacted where it held a secret)."""
    for m in reversed(window):
        if m.info.id == answer.id:
            return m.info if isinstance(m.info, AssistantMessage) else answer
    return answer
