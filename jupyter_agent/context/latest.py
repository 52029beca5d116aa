"""Where a session stands, read from its messages (SPEC "Loop"): OpenCode's ``MessageV2.latest``.

The loop decides every iteration from these alone (state = replay of messages), so a
stored session resumes exactly where it stopped.
"""

from __future__ import annotations

from dataclasses import dataclass

from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    MessageWithParts,
    SubtaskPart,
    UserMessage,
)


@dataclass(frozen=True)
class Latest:
    """The last user message, the last assistant message and the last finished one."""

    user: MessageWithParts | None = None
    assistant: MessageWithParts | None = None
    finished: MessageWithParts | None = None


def latest(window: list[MessageWithParts]) -> Latest:
    """Last user, last assistant, last finished assistant — by id (creation order).

    The window is id-ordered, so walking back from the end finds them after a few
    messages (the compaction tail reorders only what the model sees).
    """
    user = assistant = finished = None
    for m in reversed(window):
        info = m.info
        if isinstance(info, UserMessage):
            user = user or m
        elif isinstance(info, AssistantMessage):
            assistant = assistant or m
            if info.finish and finished is None:
                finished = m
        if user is not None and finished is not None:
            break
    return Latest(user, assistant, finished)


def pending_task(window: list[MessageWithParts], after: str) -> CompactionPart | SubtaskPart | None:
    """A compaction or subtask part in user messages newer than ``after`` (the last finished answer).

    One that already has an answer (even a failed summary) is done: never re-run it.
    """
    answered: set[str] = set()
    for m in reversed(window):
        if m.info.id <= after:
            return None
        if isinstance(m.info, AssistantMessage):
            answered.add(m.info.parent_id)
        elif m.info.id not in answered:
            for p in m.parts:
                if isinstance(p, (CompactionPart, SubtaskPart)):
                    return p
    return None


def follows_summary(window: list[MessageWithParts], user_id: str) -> bool:
    """True for a prompt re-sent right after a successful summary (an overflow replay)."""
    before = None
    for m in window:
        if m.info.id >= user_id:
            break
        before = m
    info = before.info if before is not None else None
    return isinstance(info, AssistantMessage) and info.summary and info.error is None


def user_of(entry: MessageWithParts) -> UserMessage:
    """The user message of an entry ``latest`` found as one (typed for the checks that follow)."""
    if not isinstance(entry.info, UserMessage):
        raise TypeError(f"{entry.info.id} is not a user message")
    return entry.info


def answer_of(entry: MessageWithParts) -> AssistantMessage:
    """The assistant message of an entry ``latest`` found as one."""
    if not isinstance(entry.info, AssistantMessage):
        raise TypeError(f"{entry.info.id} is not an assistant message")
    return entry.info
