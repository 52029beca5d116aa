"""Refuse a prompt that cannot fit the model's window even on its own (SPEC "Compaction").

Sending it would overflow, its compaction would overflow too, and every later turn would
carry it again. Instead the prompt is kept for the record but never sent (its texts are
marked ``ignored``), an answer with the error says why, and the session stays usable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_agent.agent.ending import end_with_error, error_answer
from jupyter_agent.context.compaction import message_tokens
from jupyter_agent.context.overflow import usable
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageError,
    MessageWithParts,
    TextPart,
)

if TYPE_CHECKING:
    from jupyter_agent.agent.loop import AgentLoop


def _chars(m: MessageWithParts) -> int:
    return sum(len(p.text) for p in m.parts if isinstance(p, TextPart) and not p.ignored)


def window(loop: AgentLoop) -> int:
    return usable(loop.settings.model)


def too_large(loop: AgentLoop, user: MessageWithParts) -> int | None:
    """The prompt's size in tokens when it alone does not fit, else None (cheap for small ones)."""
    limit = window(loop)
    if not limit or _chars(user) < limit:  # a token is at least one character
        return None
    size = message_tokens(user, loop.counter)
    return size if size >= limit else None


def refuse(
    loop: AgentLoop, user: MessageWithParts, size: int, answer: AssistantMessage | None = None
) -> None:
    """Stop the prompt from ever being sent, and say so in an error the user can act on."""
    rec = loop.recorder
    s = loop.settings
    for p in user.parts:
        if isinstance(p, TextPart) and not p.ignored:
            rec.part(p.model_copy(update={"ignored": True}))
    message = (
        f"This prompt is too large for {s.model.name}: about {size:,} tokens, but the model's context "
        f"window is {s.model.context:,} tokens ({window(loop):,} usable for a request). It was not "
        "sent and the session is unchanged. Send a shorter prompt (put large data in a file the "
        "agent can read), or start over with `%agent new` (CLI: run without --continue)."
    )
    error = MessageError(name="context_overflow", message=message)
    answer = (answer or error_answer(user.info, s.model.name)).model_copy(update={"finish": "error"})
    end_with_error(rec, answer, error)
