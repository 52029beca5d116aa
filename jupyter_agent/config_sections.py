"""The sections of the configuration (``models.<id>``, ``budget``, ``compaction``,
``sandbox``, ``checkpoint``, ``completion``, ``agent.<name>`` …): their keys, defaults and
bounds. ``config.py`` puts them together in one ``Config`` and reads the files."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from jupyter_agent.context.truncate import MAX_BYTES, MAX_LINES, MAX_SAVED_BYTES

Action = Literal["allow", "ask", "deny"]


class Strict(BaseModel):
    """Unknown keys are errors: a typo names its file and key instead of being ignored."""

    model_config = ConfigDict(extra="forbid")


class Limit(Strict):
    context: int | None = Field(default=None, ge=1)
    input: int | None = Field(default=None, ge=1)
    output: int | None = Field(default=None, ge=1)


class ModelConfig(Strict):
    limit: Limit = Field(default_factory=Limit)
    options: dict[str, Any] = Field(default_factory=dict)
    """litellm call arguments for this model (``thinking``, ``reasoning_effort``, ``temperature``…)."""
    base_model: str | None = None
    """The litellm model this one is priced and sized like: an alias on a LiteLLM proxy
    (``litellm_proxy/claude-sonnet`` → ``anthropic/claude-sonnet-4-5``) has no price of its own."""


class BudgetConfig(Strict):
    """Spending limits in USD; the loop stops after the step that crosses one."""

    session_usd: float | None = Field(default=None, gt=0)
    turn_usd: float | None = Field(default=None, gt=0)


class CompactionConfig(Strict):
    auto: bool = True
    prune: bool = True
    tail_turns: int = Field(default=2, ge=0)
    preserve_recent_tokens: int | None = Field(default=None, ge=0)
    reserved: int | None = Field(default=None, ge=0)
    model: str | None = None
    """The model that writes summaries (default: the session's model)."""


class ToolOutputConfig(Strict):
    max_lines: int = Field(default=MAX_LINES, ge=1)
    max_bytes: int = Field(default=MAX_BYTES, ge=1)
    max_saved_bytes: int = Field(default=MAX_SAVED_BYTES, ge=1)
    """The saved full output of a tool stops here; bash and python stop what wrote more."""


class SandboxConfig(Strict):
    """The OS sandbox ``bash`` runs in (Linux, bubblewrap; docs/security.md)."""

    enabled: bool = True
    """Run commands in the sandbox where it can start (a notice says when it cannot)."""
    network: bool = True
    """``false``: commands have no network (only their own loopback)."""
    deny_read: list[str] = Field(default_factory=list)
    """More files or folders hidden from commands and refused by the file tools (``~`` allowed)."""
    writable: list[str] = Field(default_factory=list)
    """More folders commands may write besides the project and the temp folder (a cache …)."""


class VerifyConfig(Strict):
    """``%agent verify`` / ``jupyter-agent verify``: the notebook run again in a fresh kernel."""

    cell_timeout: float = Field(default=600.0, gt=0)
    """Seconds one cell may run before it counts as failed."""
    timeout: float = Field(default=3600.0, gt=0)
    """Seconds the whole verification may take; cells after it are reported as not run."""
    float_tolerance: float = Field(default=1e-6, ge=0, lt=1)
    """Relative difference under which two printed floats count as equal (float noise)."""


class NotebookConfig(Strict):
    review: Literal["stage", "apply"] = "stage"
    """How the agent's cell edits reach an open notebook: ``stage`` shows each one for Accept /
    Reject first, ``apply`` changes the cells at once. Runs nobody watches always apply."""


MiB = 1024 * 1024


class CheckpointConfig(Strict):
    """What is recorded before each tool call so that a revert undoes a prompt completely."""

    enabled: bool = True
    max_bytes: int = Field(default=256 * MiB, ge=0)
    """Kernel variables copied per prompt before the agent's code changes them."""
    max_file_bytes: int = Field(default=10 * MiB, ge=0)
    """A larger file is not kept by the project's snapshot (a revert names it)."""
    max_total_bytes: int = Field(default=1024 * MiB, ge=0)
    """What one snapshot of the project keeps in all (smaller files first)."""
    max_files: int = Field(default=20_000, ge=1)
    """Files looked at per snapshot; beyond, the rest of the project is not watched."""
    exclude: list[str] = Field(default_factory=list)
    """More paths (globs relative to the project) the snapshot leaves out."""


class CompletionConfig(Strict):
    """Inline completion in notebook cells (ghost text from the kernel that holds the data)."""

    enabled: bool | None = None
    """None: on when a model is configured (``%agent complete on|off`` for one kernel)."""
    model: str | None = None
    """The model that completes (default: ``small_model``, else ``model``)."""
    debounce_ms: int = Field(default=300, ge=0, le=2000)
    """How long typing must pause before a completion is asked for (below JupyterLab's 5 s wait)."""
    max_context_tokens: int = Field(default=2000, ge=200, le=32000)
    """What one request may carry: the cell, the live names it uses, the cells above."""
    max_tokens: int = Field(default=128, ge=8, le=2000)
    """The longest suggestion, in tokens."""


class AgentConfig(Strict):
    model: str | None = None
    prompt: str | None = None
    permission: dict[str, Action | dict[str, Action]] | None = None
    steps: int | None = Field(default=None, ge=1)
    options: dict[str, Any] = Field(default_factory=dict)
    """litellm call arguments for this agent; win over ``models.<id>.options``."""
