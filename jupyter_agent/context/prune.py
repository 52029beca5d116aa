"""Prune: choose old tool outputs to clear (SPEC "Prune"). Pure: returns part ids only.

The store writes ``time.compacted``; the model then sees a placeholder in place of the
output, and the call/result pair stays intact.
"""

from __future__ import annotations

from collections.abc import Iterator

from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageWithParts,
    ToolPart,
    ToolStateCompleted,
    UserMessage,
)

PRUNE_PROTECT = 40_000
PRUNE_MINIMUM = 20_000
PRUNE_PROTECTED_TOOLS = frozenset({"skill"})
PROTECTED_TURNS = 2


def _walk(messages: list[MessageWithParts]) -> Iterator[ToolPart | None]:
    """The completed outputs prune weighs, newest first; ``None`` where the walk stops.

    It stops at a summary or at an output already cleared (everything older was pruned
    before), and never looks at the last ``PROTECTED_TURNS`` turns.
    """
    turns = 0
    for message in reversed(messages):
        if isinstance(message.info, UserMessage):
            turns += 1
        if turns < PROTECTED_TURNS:
            continue
        if isinstance(message.info, AssistantMessage) and message.info.summary:
            yield None
            return
        for part in reversed(message.parts):
            if not isinstance(part, ToolPart) or not isinstance(part.state, ToolStateCompleted):
                continue
            if part.tool in PRUNE_PROTECTED_TOOLS:
                continue
            if part.state.time.compacted:
                yield None
                return
            yield part


def select_prune(
    messages: list[MessageWithParts],
    counter: TokenCounter | None = None,
    protect: int = PRUNE_PROTECT,
    minimum: int = PRUNE_MINIMUM,
) -> list[str]:
    """Ids of completed tool parts to clear, oldest-last; empty unless > ``minimum`` freed."""
    counter = counter or TokenCounter()
    total = 0
    pruned = 0
    selected: list[str] = []
    for part in _walk(messages):
        if part is None:
            break
        output = part.state.output if isinstance(part.state, ToolStateCompleted) else ""  # always completed
        tokens = counter.count(output, part.id)
        total += tokens
        if total > protect:
            pruned += tokens
            selected.append(part.id)
    return selected if pruned > minimum else []


def prune_stops_within(messages: list[MessageWithParts]) -> bool:
    """True when prune's walk over ``messages`` (the newest of a history) stops inside them:
    then older messages cannot change what it selects, and need not be loaded."""
    return any(part is None for part in _walk(messages))
