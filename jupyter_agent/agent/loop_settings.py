"""Per-run knobs for the loop: the resolved model and the config sections a run reads.

Apart from the loop so that a step and a compaction (``step.py``, ``compaction.py``) read
them without importing the loop that runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from jupyter_agent.agent.budget import Budget
from jupyter_agent.agent.retrying import MAX_RETRIES
from jupyter_agent.config import AgentConfig, CompactionConfig
from jupyter_agent.core.agents import AgentInfo, get_agent
from jupyter_agent.core.messages import UserMessage
from jupyter_agent.core.model import ResolvedModel

DEFAULT_MAX_STEPS = 100
"""Most model calls per prompt when neither the agent nor the config says (``steps``)."""


@dataclass
class LoopSettings:
    """Per-run knobs: the resolved model and the config sections a run reads, typed."""

    model: ResolvedModel
    """The run's model, resolved once (``Workspace.resolve_model``): name, window, flags."""
    system: Callable[[AgentInfo], str]
    """Builds the system prompt for an agent (agent prompt, environment, instructions)."""
    compaction: CompactionConfig = field(default_factory=CompactionConfig)
    agents: dict[str, AgentConfig] = field(default_factory=dict)
    """``agent.<name>`` from config: model, prompt, steps, options per agent."""
    max_steps: int = DEFAULT_MAX_STEPS
    """``steps`` from config: the cap of an agent without its own ``steps``."""
    api_base: str | None = None
    api_key: str | None = None
    options: Callable[[str, str], dict[str, Any]] | None = None
    """litellm call arguments for (model, agent): ``models.<id>.options`` + ``agent.<name>.options``."""
    budget: Budget | None = None
    model_locked: bool = False
    """The admin's file locks ``model``: a prompt's own model (a flag, an older message) is not used."""
    retries: int = MAX_RETRIES
    """How often a failed model call is tried again (``retries``)."""
    _agents: dict[str, AgentInfo] = field(default_factory=dict, repr=False)

    def agent(self, name: str) -> AgentInfo:
        """The agent ``name`` with its config applied, looked up once per run."""
        if name not in self._agents:
            self._agents[name] = get_agent(name, self.agents.get(name))
        return self._agents[name]

    def step_model(self, user: UserMessage, agent: AgentInfo) -> str:
        """A step's model: the prompt's own (unless the admin locks it), the agent's, the run's."""
        return (None if self.model_locked else user.model) or agent.model or self.model.name

    def compaction_model(self) -> str:
        """The model that writes summaries: ``compaction.model``, ``agent.compaction.model``, the run's."""
        return self.compaction.model or self.agent("compaction").model or self.model.name
