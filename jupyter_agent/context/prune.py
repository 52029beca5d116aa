"""Prune: choose old tool outputs to clear (SPEC "Prune"). Pure: returns part ids only.

The store writes ``time.compacted``; the model then sees a placeholder in place of the
output, and the call/result pair stays intact.
"""

from __future__ import annotations

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


def select_prune(
    messages: list[MessageWithParts],
    counter: TokenCounter | None = None,
    protect: int = PRUNE_PROTECT,
    minimum: int = PRUNE_MINIMUM,
) -> list[str]:
    """Ids of completed tool parts to clear, oldest-last; empty unless > ``minimum`` freed."""
    counter = counter or TokenCounter()
    turns = 0
    total = 0
    pruned = 0
    selected: list[str] = []
    for message in reversed(messages):
        if isinstance(message.info, UserMessage):
            turns += 1
        if turns < PROTECTED_TURNS:
            continue
        if isinstance(message.info, AssistantMessage) and message.info.summary:
            break
        for part in reversed(message.parts):
            if not isinstance(part, ToolPart) or not isinstance(part.state, ToolStateCompleted):
                continue
            if part.tool in PRUNE_PROTECTED_TOOLS:
                continue
            if part.state.time.compacted:
                return selected if pruned > minimum else []
            tokens = counter.count(part.state.output, part.id)
            total += tokens
            if total > protect:
                pruned += tokens
                selected.append(part.id)
    return selected if pruned > minimum else []
