"""One inline completion as a value: the cell around the cursor in both shapes a model takes.

A provider with fill-in-the-middle (Codestral, DeepSeek, an OpenAI-style ``/completions``
endpoint) gets ``prompt`` and ``suffix``; every other model gets ``messages``, a chat that
asks for the continuation only. The agent builds both (plain strings, cheap) and the
client picks the one its provider takes, so the choice lives where litellm is known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.core.chat import ChatMessage
from jupyter_agent.core.model_request import Connection


@dataclass(frozen=True)
class CompletionCall:
    model: str
    prompt: str
    """Fill-in-the-middle: everything before the cursor (context first, the cell's prefix last)."""
    suffix: str
    """Fill-in-the-middle: the cell after the cursor."""
    messages: Sequence[ChatMessage]
    """The chat shape of the same request (models without fill-in-the-middle)."""
    max_tokens: int
    stop: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    """Configured call arguments for the model (``models.<id>.options``)."""
    connection: Connection = field(default_factory=Connection)
