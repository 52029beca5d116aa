"""Spending limits: a run stops after the step whose cost crosses the turn or session budget.

The step that crosses is kept whole (its tool calls ran and are in the history), so the
next prompt continues from there; the error says what was spent and how to go on.
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.core import cost
from jupyter_agent.core.messages import MessageError, MessageWithParts

HOW = (
    'Raise it with "budget": {"session_usd": N, "turn_usd": N} in jupyter-agent.json '
    "(CLI: --budget N for one run), or start a new session."
)


@dataclass
class Budget:
    session_usd: float | None = None
    turn_usd: float | None = None

    def __bool__(self) -> bool:
        return self.session_usd is not None or self.turn_usd is not None


def crossed(
    budget: Budget, history: list[MessageWithParts], user_id: str, spent: cost.CostTotal | None = None
) -> str | None:
    """Why the run must stop now (a limit reached), or None.

    ``history`` must hold the prompt and its answers; ``spent``, the session's cost, is
    computed from it when not given (a recorder's window does not hold every message).
    """
    spent = spent if spent is not None else cost.total(history)
    if budget.session_usd is not None and spent.usd >= budget.session_usd:
        return (
            f"Stopped: the session budget of ${budget.session_usd:g} is used up (spent {spent.text()}). {HOW}"
        )
    turn = cost.turn(history, user_id)
    if budget.turn_usd is not None and turn.usd >= budget.turn_usd:
        return (
            f"Stopped: this prompt reached its budget of ${budget.turn_usd:g} "
            f"(spent {turn.text()}; session {spent.text()}). {HOW}"
        )
    return None


def budget_error(text: str) -> MessageError:
    """The error a run that crossed a budget ends with (``text`` from ``crossed``)."""
    return MessageError(name="aborted", message=text, metadata={"budget": True})
