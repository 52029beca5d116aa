"""One model call as a value: which model, what it is sent, how far it may answer, where.

Shaped like pydantic-ai's ``Model.request_stream(messages, settings, parameters)`` folded
into one object: the step builds it once (``agent/step.py``) and every client (the litellm
adapter, the in-process scripted model) reads the same fields, so the port takes one
argument instead of nine keywords.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.core.chat import ChatMessage, ToolSpec

RESERVED_OPTIONS = frozenset({"model", "messages", "stream", "stream_options", "tools", "num_retries"})
"""Call arguments the request itself decides; configured options cannot replace them."""


@dataclass(frozen=True)
class Connection:
    """Where the model is served: a custom endpoint and its key (None: the provider's own)."""

    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    """Never shown: a logged or printed request must not carry it."""


@dataclass(frozen=True)
class ModelRequest:
    """What one model call is sent. Frozen, and its lists are not copied: the request
    builder reuses its message list between steps, so no client may change them."""

    model: str
    """litellm's model name (``anthropic/claude-sonnet-4-5``, ``openai/gpt-5``)."""
    messages: Sequence[ChatMessage]
    """The system prompt and the history, in the provider's chat shape."""
    tools: Sequence[ToolSpec] = ()
    """The tools the model may call (empty: none are declared)."""
    max_tokens: int | None = None
    """The answer's cap (``max_output``); None sends none."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Further call arguments from config (``models.<id>.options``, ``agent.<name>.options``)
    and the loop (``tool_choice`` on the last step)."""
    connection: Connection = Connection()

    def call_options(self) -> dict[str, Any]:
        """``options`` without the arguments the request owns (``RESERVED_OPTIONS``)."""
        return {k: v for k, v in self.options.items() if k not in RESERVED_OPTIONS}
