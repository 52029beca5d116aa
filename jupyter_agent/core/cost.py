"""What a session and a turn cost, from the stored steps; "unknown" is never shown as $0.

A step whose model has no price in litellm's map is stored with ``cost_unknown``; totals
then say so ("$0.0123 + unknown") instead of pretending the step was free.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from jupyter_agent.core.messages import AssistantMessage, MessageWithParts

COMPLETIONS = "completion"
"""The ``call_cost`` kind of inline completions in cells: a line of its own in the session's
cost, never in its totals or budgets (the agent did not spend it)."""


class CostTotal(BaseModel):
    usd: float = 0.0
    unknown: bool = False
    """At least one step could not be priced."""
    steps: int = 0

    def add(self, info: AssistantMessage) -> None:
        self.usd += info.cost
        self.unknown = self.unknown or unpriced(info)
        self.steps += 1

    def merge(self, other: CostTotal) -> CostTotal:
        """Add ``other`` (calls made for the session outside its messages, such as its title)."""
        self.usd += other.usd
        self.unknown = self.unknown or other.unknown
        self.steps += other.steps
        return self

    def text(self) -> str:
        return format_cost(self.usd, self.unknown, self.steps)


def format_cost(usd: float, unknown: bool, steps: int = 1) -> str:
    """``$0.0177`` · ``cost unknown`` · ``$0.0177 + unknown`` (four decimals below a dollar)."""
    if steps == 0:
        return "$0.00"
    if unknown and usd == 0:
        return "cost unknown"
    amount = f"${usd:.4f}" if usd < 1 else f"${usd:,.2f}"
    return f"{amount} + unknown" if unknown else amount


def completions_text(spent: CostTotal) -> str:
    """``completions $0.0012 (14)``; empty before the first one."""
    if not spent.steps:
        return ""
    return f"completions {format_cost(spent.usd, spent.unknown, spent.steps)} ({spent.steps})"


def pair_text(turn: CostTotal, session: CostTotal) -> str:
    """``$0.0100 this prompt · $0.0400 session``; just ``cost unknown`` when nothing in the
    session could be priced (saying it twice tells nothing more)."""
    if session.unknown and session.usd == 0 and session.steps:
        return "cost unknown"
    return f"{turn.text()} this prompt · {session.text()} session"


def total(messages: Iterable[MessageWithParts]) -> CostTotal:
    """The cost of every assistant message in ``messages`` (summaries included: they were paid)."""
    out = CostTotal()
    for m in messages:
        if isinstance(m.info, AssistantMessage) and _counted(m.info):
            out.add(m.info)
    return out


def turn(history: list[MessageWithParts], user_id: str) -> CostTotal:
    """The cost of the answers to one prompt (every step of its loop)."""
    return total(m for m in history if isinstance(m.info, AssistantMessage) and m.info.parent_id == user_id)


def prompt_cost(history: list[MessageWithParts]) -> CostTotal:
    """The cost of the answers to the last prompt in ``history``."""
    last_user = next((m.info.id for m in reversed(history) if m.info.role == "user"), None)
    return turn(history, last_user) if last_user else CostTotal()


class CostTracker:
    """Running session and per-prompt totals, updated in O(1) per stored assistant message
    (the widget and panel header show them after every step)."""

    def __init__(self, history: Iterable[MessageWithParts] = ()) -> None:
        self._seen: dict[str, AssistantMessage] = {}
        self.session = CostTotal()
        self._turns: dict[str, CostTotal] = {}
        for m in history:
            if isinstance(m.info, AssistantMessage):
                self.update(m.info)

    def update(self, info: AssistantMessage) -> None:
        old = self._seen.get(info.id)
        turn = self._turns.setdefault(info.parent_id, CostTotal())
        for total in (self.session, turn):
            if old is not None and _counted(old):
                total.usd -= old.cost
                total.steps -= 1
            if _counted(info):
                total.add(info)
        self._seen[info.id] = info

    def text(self, parent_id: str) -> str:
        """``$0.0100 this prompt · $0.0400 session`` (empty before anything was priced)."""
        if not self.session.steps:
            return ""
        return pair_text(self._turns.get(parent_id) or CostTotal(), self.session)


def unpriced(info: AssistantMessage) -> bool:
    """No price for a step of it, or a call that failed before the provider said what it used
    (it may have been paid for): its cost is unknown, never $0."""
    return info.cost_unknown or (info.error is not None and not info.finish)


def _counted(info: AssistantMessage) -> bool:
    return bool(info.finish or info.cost or info.cost_unknown or info.error is not None)
