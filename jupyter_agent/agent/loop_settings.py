"""Per-run knobs for the loop, resolved from config, the model and the caller.

Apart from the loop so that a step and a compaction (``step.py``, ``compaction.py``) read
them without importing the loop that runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.agent.agents import AgentInfo
from jupyter_agent.agent.budget import Budget
from jupyter_agent.context.overflow import OUTPUT_TOKEN_MAX


@dataclass
class LoopSettings:
    """Per-run knobs resolved from config, the model and the caller."""

    model: str
    system: Callable[[AgentInfo], str]
    """Builds the system prompt for an agent (agent prompt, environment, instructions)."""
    context_limit: int
    input_limit: int | None
    output_limit: int | None
    auto_compact: bool = True
    prune: bool = True
    reserved: int | None = None
    output_token_max: int = OUTPUT_TOKEN_MAX
    tail_turns: int = 2
    preserve_recent_tokens: int | None = None
    max_steps: int | None = None
    supports_vision: bool = False
    media_in_tool_results: bool = False
    api_base: str | None = None
    api_key: str | None = None
    agent_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    compaction_model: str | None = None
    options: Callable[[str, str], dict[str, Any]] | None = None
    """litellm call arguments for (model, agent): ``models.<id>.options`` + ``agent.<name>.options``."""
    budget: Budget | None = None
    model_locked: bool = False
    """The admin's file locks ``model``: a prompt's own model (a flag, an older message) is not used."""
