"""A prompt that cannot fit the model's window even on its own (SPEC "Compaction").

Sending it would overflow, its compaction would overflow too, and every later turn would
carry it again. Instead the prompt is kept for the record but never sent (its texts are
marked ``ignored``), an answer with the error says why, and the session stays usable.
These checks are pure; the loop records the refusal (``AgentLoop._end``).
"""

from __future__ import annotations

from jupyter_agent.context.compaction import message_tokens
from jupyter_agent.context.tokens import TokenCounter
from jupyter_agent.core.messages import MessageError, MessageWithParts, TextPart


def _chars(m: MessageWithParts) -> int:
    return sum(len(p.text) for p in m.parts if isinstance(p, TextPart) and not p.ignored)


def too_large(user: MessageWithParts, usable: int, counter: TokenCounter) -> int | None:
    """The prompt's size in tokens when it alone does not fit ``usable``, else None (cheap for small ones)."""
    if not usable or _chars(user) < usable:  # a token is at least one character
        return None
    size = message_tokens(user, counter)
    return size if size >= usable else None


def unsent(user: MessageWithParts) -> list[TextPart]:
    """The prompt's texts marked ``ignored``: kept for the record, never sent again."""
    return [
        p.model_copy(update={"ignored": True})
        for p in user.parts
        if isinstance(p, TextPart) and not p.ignored
    ]


def refusal(model: str, size: int, context: int, usable: int) -> MessageError:
    """Why the prompt was not sent, and what the user can do instead."""
    message = (
        f"This prompt is too large for {model}: about {size:,} tokens, but the model's context "
        f"window is {context:,} tokens ({usable:,} usable for a request). It was not "
        "sent and the session is unchanged. Send a shorter prompt (put large data in a file the "
        "agent can read), or start over with `%agent new` (CLI: run without --continue)."
    )
    return MessageError(name="context_overflow", message=message)
