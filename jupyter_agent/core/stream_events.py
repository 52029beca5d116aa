"""Our own stream events: what one model step produced, whichever client streamed it.

The port (``agent/ports.py``) yields these; the litellm adapter makes them of its chunks
(``providers/litellm_client.py``), the in-process scripted model of its script.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from jupyter_agent.core.messages import Tokens


class TextStart(BaseModel):
    type: Literal["text-start"] = "text-start"


class TextDelta(BaseModel):
    type: Literal["text-delta"] = "text-delta"
    delta: str


class TextEnd(BaseModel):
    type: Literal["text-end"] = "text-end"


class ReasoningStart(BaseModel):
    type: Literal["reasoning-start"] = "reasoning-start"


class ReasoningDelta(BaseModel):
    type: Literal["reasoning-delta"] = "reasoning-delta"
    delta: str


class ReasoningEnd(BaseModel):
    type: Literal["reasoning-end"] = "reasoning-end"


class ReasoningMetadata(BaseModel):
    """What the provider needs back with this step's reasoning (thinking blocks + signatures)."""

    type: Literal["reasoning-metadata"] = "reasoning-metadata"
    provider_metadata: dict[str, Any]


class ToolInputStart(BaseModel):
    type: Literal["tool-input-start"] = "tool-input-start"
    call_id: str
    name: str


class ToolInputDelta(BaseModel):
    type: Literal["tool-input-delta"] = "tool-input-delta"
    call_id: str
    delta: str


class ToolCall(BaseModel):
    type: Literal["tool-call"] = "tool-call"
    call_id: str
    name: str
    arguments: str
    """The raw JSON text the model produced (validated later, errors go to the model)."""
    provider_metadata: dict[str, Any] | None = None
    """litellm's ``provider_specific_fields`` of the call (Gemini thought signatures)."""


class FinishStep(BaseModel):
    type: Literal["finish-step"] = "finish-step"
    reason: str
    usage: Tokens
    cost: float | None = 0.0
    """USD for this step by litellm's cache-aware prices; None when litellm has no price."""


class AttemptRestart(BaseModel):
    """A retry after partial output: consumers drop what the failed attempt streamed."""

    type: Literal["attempt-restart"] = "attempt-restart"
    attempt: int


StreamEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ReasoningStart
    | ReasoningDelta
    | ReasoningEnd
    | ReasoningMetadata
    | ToolInputStart
    | ToolInputDelta
    | ToolCall
    | FinishStep
    | AttemptRestart
)
