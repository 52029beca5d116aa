"""Compaction, the pure parts (SPEC "Compaction"): what the model sees, the tail, the request."""

from __future__ import annotations

from jupyter_agent.context.to_provider import MessageCache, to_model_messages
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core.chat import ChatMessage, ChatUser
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
TOO_LARGE_MEDIA_NOTE = (
    "The previous request was too large for the model's context window (for example because of "
    "large attachments), so the conversation was summarised and attachments were removed. If the "
    "user asked about attached files or images, say they were too large and suggest smaller ones."
)
TOO_LARGE = "Session too large to compact - context exceeds model limit even after stripping media"
ANCHOR_NEW = "Create a new anchored summary from the conversation history above."
ANCHOR_UPDATE = "Update the anchored summary below using the conversation history above."
ANCHOR_MERGE = "Preserve still-true details, remove stale details, and merge in the new facts."
TEMPLATE = """Reply with exactly the Markdown structure inside <template>, sections in this order, \
without the <template> tags.
<template>
## Goal
- [the task in one sentence]

## Constraints & Preferences
- [what the user asked for or ruled out: requirements, style, libraries, data to use; or "(none)"]

## Progress
### Done
- [work finished, with results that matter later; or "(none)"]

### In Progress
- [work started and not finished; or "(none)"]

### Blocked
- [what is stuck and why; or "(none)"]

## Key Decisions
- [each decision and the reason for it; or "(none)"]

## Next Steps
- [the next actions, in order; or "(none)"]

## Critical Context
- [facts needed to continue: variable, DataFrame and column names, values, errors, open questions; \
or "(none)"]

## Relevant Files
- [path (file, notebook or folder): why it matters; or "(none)"]
</template>

Rules:
- Keep every section, even an empty one.
- Short bullets, no prose paragraphs.
- Keep file paths, cell numbers, commands, error messages and identifiers exactly as written.
- Do not mention that this is a summary or that the conversation was compacted."""


def _compaction_part(m: MessageWithParts) -> CompactionPart | None:
    if isinstance(m.info, UserMessage):
        for p in m.parts:
            if isinstance(p, CompactionPart):
                return p
    return None


def filter_compacted(messages: list[MessageWithParts]) -> list[MessageWithParts]:
    """What the model sees: from the last completed compaction on, with its verbatim tail.

    Order: compaction user ("What did we do so far?") → summary → tail → newer messages.
    A compaction whose summary failed (error, no finish) does not cut anything. The tail
    stops before a replayed prompt: its copy after the summary is the one the model sees.
    """
    completed: set[str] = set()
    newer: list[MessageWithParts] = []
    for index in range(len(messages) - 1, -1, -1):
        m = messages[index]
        part = _compaction_part(m)
        if part is not None and m.info.id in completed:
            tail: list[MessageWithParts] = []
            if part.tail_start_id is not None:
                replayed = _replayed(messages[:index])
                tail = [
                    x
                    for x in messages[:index]
                    if x.info.id >= part.tail_start_id
                    and (part.replay_id is None or x.info.id < part.replay_id)
                    and _compaction_part(x) is None
                    and not _is_summary(x)
                    and x.info.id not in replayed
                    and getattr(x.info, "parent_id", None) not in replayed
                ]
            newer.reverse()
            summary = [x for x in newer if _is_summary(x) and x.info.parent_id == m.info.id]  # type: ignore[union-attr]
            rest = [x for x in newer if x not in summary]
            return [m, *summary, *tail, *_without_open_compactions(rest)]
        newer.append(m)
        info = m.info
        if isinstance(info, AssistantMessage) and _completed_summary(info):
            completed.add(info.parent_id)
    newer.reverse()
    return _without_open_compactions(newer)


def _replayed(messages: list[MessageWithParts]) -> set[str]:
    """Prompts an earlier overflow compaction re-sent: only their copies are history."""
    out: set[str] = set()
    for m in messages:
        part = _compaction_part(m)
        if part is not None and part.replay_id is not None:
            out.add(part.replay_id)
    return out


def _is_summary(m: MessageWithParts) -> bool:
    return isinstance(m.info, AssistantMessage) and m.info.summary


def _completed_summary(info: AssistantMessage) -> bool:
    return info.summary and bool(info.finish) and info.finish != "error" and info.error is None


def _without_open_compactions(messages: list[MessageWithParts]) -> list[MessageWithParts]:
    """A compaction that failed (or has not run) is not history the model should see."""
    return [m for m in messages if _compaction_part(m) is None and not _failed_summary(m)]


def _failed_summary(m: MessageWithParts) -> bool:
    return isinstance(m.info, AssistantMessage) and m.info.summary and not _completed_summary(m.info)


def preserve_recent_budget(usable_tokens: int) -> int:
    return min(8000, max(2000, usable_tokens * 25 // 100))


def message_tokens(m: MessageWithParts, counter: TokenCounter) -> int:
    total = 0
    for p in m.parts:
        if isinstance(p, TextPart):
            total += 0 if p.ignored else counter.count(p.text, p.id)
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
    """First message id kept verbatim after the summary, or None (summarise everything).

    The last ``tail_turns`` turns are kept whole while they fit ``budget``; the first
    that does not is split at its earliest message whose rest fits (never at its own
    user message). A tail that would start at the first message leaves nothing to
    summarise, so then there is no tail (OpenCode: ``!keep || keep.start === 0``).
    """
    counter = counter or TokenCounter()
    if tail_turns <= 0:
        return None
    starts = [
        i for i, m in enumerate(messages) if isinstance(m.info, UserMessage) and _compaction_part(m) is None
    ]
    turns = [(s, starts[k + 1] if k + 1 < len(starts) else len(messages)) for k, s in enumerate(starts)]
    keep: int | None = None
    used = 0
    for begin, end in reversed(turns[-tail_turns:]):
        sizes = [message_tokens(m, counter) for m in messages[begin:end]]
        if used + sum(sizes) <= budget:
            used += sum(sizes)
            keep = begin
            continue
        for k in range(1, len(sizes)):
            if used + sum(sizes[k:]) <= budget:
                keep = begin + k
                break
        break
    if not keep:  # None, or 0: nothing older would be summarised
        return None
    return messages[keep].info.id


def summary_text(m: MessageWithParts) -> str | None:
    text = "\n\n".join(p.text.strip() for p in m.parts if isinstance(p, TextPart) and p.text.strip())
    return text or None


def split_for_summary(
    visible: list[MessageWithParts], replay_id: str | None
) -> tuple[list[MessageWithParts], str | None, MessageWithParts | None]:
    """What a compaction summarises, the summary it updates, and the prompt it replays.

    ``visible`` is what the model saw before the compaction message (``filter_compacted``).
    The previous compaction pair is hidden (its summary is returned instead); on overflow
    replay the replayed prompt and everything after it are left out, unless that leaves
    no user turn to summarise (then nothing is replayed and all of it is summarised).
    """
    previous: str | None = None
    history: list[MessageWithParts] = []
    pairs = {m.info.id for m in visible if _compaction_part(m) is not None}
    for m in visible:
        if m.info.id in pairs:
            continue
        if isinstance(m.info, AssistantMessage) and m.info.summary:
            if m.info.parent_id in pairs and _completed_summary(m.info):
                previous = summary_text(m) or previous
            continue
        history.append(m)
    replay = None
    if replay_id is not None:
        at = next((i for i, m in enumerate(history) if m.info.id == replay_id), None)
        if at is not None and any(isinstance(m.info, UserMessage) for m in history[:at]):
            replay = history[at]
            history = history[:at]
    return history, previous, replay


EARLIER_TURN = "(The start of this turn is in the previous summary.)"


def anchor_prompt(previous_summary: str | None) -> str:
    """The last user message of a summary request: anchor (+ previous summary), then template."""
    if previous_summary:
        anchor = "\n".join(
            [ANCHOR_UPDATE, ANCHOR_MERGE, "<previous-summary>", previous_summary, "</previous-summary>"]
        )
    else:
        anchor = ANCHOR_NEW
    return f"{anchor}\n\n{TEMPLATE}"


def build_compaction_request(
    history: list[MessageWithParts],
    previous_summary: str | None,
    model: str = "compaction",
    cache: MessageCache | None = None,
) -> list[ChatMessage]:
    """The history (media stripped, outputs capped) followed by the anchor + template."""
    visible = [m for m in history if _compaction_part(m) is None and not _is_summary(m)]
    messages = to_model_messages(visible, model=model, for_compaction=True, cache=cache)
    if messages and messages[0].get("role") != "user":
        # the previous tail began inside a turn; Anthropic refuses a conversation that
        # starts with the assistant
        messages = [ChatUser(role="user", content=EARLIER_TURN), *messages]
    return [*messages, ChatUser(role="user", content=anchor_prompt(previous_summary))]
