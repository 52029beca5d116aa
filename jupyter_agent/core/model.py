"""The model a run uses, resolved once: its name, its window and what its requests may carry.

Built by ``Workspace.resolve_model`` (the provider adapter reads the limits) and handed to
the loop, compaction, the overflow check and the front ends' gauge as one value, so nothing
downstream decides the model or its window again.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

OUTPUT_TOKEN_MAX = 32_000
"""The most output tokens a request asks for (SPEC "Overflow check"), unless configured."""


class ModelLimits(BaseModel):
    """The window as the provider states it (0 context: unknown)."""

    model_config = ConfigDict(frozen=True)

    context: int
    input: int | None = None
    output: int | None = None


class ResolvedModel(BaseModel):
    """One model with everything a run needs to know about it."""

    model_config = ConfigDict(frozen=True)

    name: str
    limits: ModelLimits
    reserved: int | None = None
    """``compaction.reserved``: tokens kept free below an input limit (None: the default)."""
    output_token_max: int = OUTPUT_TOKEN_MAX
    vision: bool = False
    """The model reads images in user messages."""
    media_in_tool_results: bool = False
    """The provider accepts images inside tool results (else they follow as a user message)."""
    notice: str | None = None
    """Why its window is a guess (an unknown model or base model): told once per session."""

    @property
    def context(self) -> int:
        return self.limits.context
