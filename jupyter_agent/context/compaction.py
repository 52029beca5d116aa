"""Compaction, the pure parts (SPEC "Compaction"): what the model sees, the tail, the request."""

from __future__ import annotations

from typing import Any

from jupyter_agent.context.to_provider import MessageCache, to_model_messages
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    UserMessage,
)

CONTINUE_MESSAGE = (
    "Continue if you have next steps, or stop and ask for clarification if you are unsure how to proceed."
)
TOO_LARGE = "Session too large to compact - context exceeds model limit even after stripping media"
ANCHOR_NEW = "Create a new anchored summary from the conversation history above."
ANCHOR_UPDATE = "Update the anchored summary below using the conversation history above."
TEMPLATE = """Use exactly this structure; write (none) under an empty section.

## Goal
## Constraints & Preferences
## Progress
### Done
### In Progress
### Blocked
## Key Decisions
## Next Steps
## Critical Context
## Relevant Files"""

_cache = MessageCache()


def _compaction_part(m: MessageWithParts) -> CompactionPart | None:
    if isinstance(m.info, UserMessage):
        for p in m.parts:
            if isinstance(p, CompactionPart):
                return p
    return None


def filter_compacted(messages: list[MessageWithParts]) -> list[MessageWithParts]:
    """What the model sees: from the last completed compaction on, with its verbatim tail.

    Order: compaction user ("What did we do so far?") → summary → tail → newer messages.
    A compaction whose summary failed (error, no finish) does not cut anything.
    """
    completed: set[str] = set()
    newer: list[MessageWithParts] = []
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        part = _compaction_part(m)
        if part is not None and m.info.id in completed:
            tail: list[MessageWithParts] = []
            if part.tail_start_id is not None:
                tail = [
                    x
                    for x in messages[:index]
                    if x.info.id >= part.tail_start_id
                    and _compaction_part(x) is None
                    and not (isinstance(x.info, AssistantMessage) and x.info.summary)
                ]
            newer.reverse()
            summary = [
                x
                for x in newer
                if isinstance(x.info, AssistantMessage) and x.info.summary and x.info.parent_id == m.info.id
            ]
            rest = [x for x in newer if x not in summary]
            return [m, *summary, *tail, *_without_open_compactions(rest)]
        newer.append(m)
        info = m.info
        if isinstance(info, AssistantMessage) and info.summary and info.finish and info.error is None:
            completed.add(info.parent_id)
    newer.reverse()
    return _without_open_compactions(newer)


def _without_open_compactions(messages: list[MessageWithParts]) -> list[MessageWithParts]:
    """A compaction that failed (or has not run) is not history the model should see."""
    return [m for m in messages if _compaction_part(m) is None]


def preserve_recent_budget(usable_tokens: int) -> int:
    return min(8000, max(2000, usable_tokens * 25 // 100))


def message_tokens(m: MessageWithParts, counter: TokenCounter) -> int:
    total = 0
    for p in m.parts:
        if isinstance(p, TextPart):
            total += counter.count(p.text, p.id)
        elif isinstance(p, ToolPart):
            total += counter.count(str(p.state.input), p.id + ":in")
            if isinstance(p.state, ToolStateCompleted) and not p.state.time.compacted:
                total += counter.count(p.state.output, p.id)
    return total


def select_tail(
    messages: list[MessageWithParts],
    tail_turns: int,
    budget: int,
    counter: TokenCounter | None = None,
) -> str | None:
    """First message id kept verbatim after the summary, or None when nothing fits."""
    counter = counter or TokenCounter()
    if tail_turns <= 0:
        return None
    turns: list[list[MessageWithParts]] = []
    for m in messages:
        if isinstance(m.info, UserMessage) and _compaction_part(m) is None:
            turns.append([m])
        elif turns:
            turns[-1].append(m)
    start: str | None = None
    used = 0
    first = messages[0].info.id if messages else None
    for turn in reversed(turns[-tail_turns:]):
        sizes = [message_tokens(m, counter) for m in turn]
        # something must be left to summarise: the very first message never starts the tail
        whole_allowed = turn[0].info.id != first
        if whole_allowed and used + sum(sizes) <= budget:
            used += sum(sizes)
            start = turn[0].info.id
            continue
        for k in range(1, len(turn)):
            if used + sum(sizes[k:]) <= budget:
                start = turn[k].info.id
                break
        break
    return start


def _hide_compactions(history: list[MessageWithParts]) -> list[MessageWithParts]:
    return [
        m
        for m in history
        if _compaction_part(m) is None and not (isinstance(m.info, AssistantMessage) and m.info.summary)
    ]


def build_compaction_request(
    history: list[MessageWithParts], previous_summary: str | None, model: str = "compaction"
) -> list[dict[str, Any]]:
    """The history (media stripped, outputs capped) followed by the anchor + template."""
    messages = to_model_messages(_hide_compactions(history), model=model, for_compaction=True, cache=_cache)
    if previous_summary:
        anchor = (
            f"{ANCHOR_UPDATE}\n\n{TEMPLATE}\n\n<previous-summary>\n{previous_summary}\n</previous-summary>"
        )
    else:
        anchor = f"{ANCHOR_NEW}\n\n{TEMPLATE}"
    return [*messages, {"role": "user", "content": anchor}]
