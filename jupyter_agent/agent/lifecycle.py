"""A run's lifecycle on the bus: ``RunStarted`` when it begins, ``RunFinished`` when it ends.

Every kind of run (a prompt, a compaction, a fix) from every front end (a cell, the side
panel, the command line) goes through ``Runner.run``, which publishes both; views take
their busy state and their gauge's window from these events instead of guessing from
who asked (a cell's ``%compact`` used to leave the side panel "Working…" for good).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.events import RunFinished, RunKind, RunStatus
from jupyter_agent.core.messages import AssistantMessage
from jupyter_agent.storage.sqlite_store import SqliteStore

LOCAL_PROVIDERS = frozenset(
    {"ollama", "ollama_chat", "lm_studio", "hosted_vllm", "vllm", "llamafile", "xinference", "lemonade"}
)
"""Providers that serve a model on the user's own machine or network (no price per token)."""


def is_local(model: str, api_base: str | None) -> bool:
    """Whether ``model`` runs on a server of the user's own (no price per token to show):
    Ollama and the like, or an OpenAI-compatible server at ``api_base``. A LiteLLM proxy
    (``litellm_proxy/…``) is a team's gateway to priced models: not local."""
    provider = model.split("/", 1)[0] if "/" in model else ""
    if provider in LOCAL_PROVIDERS:
        return True
    return bool(api_base) and provider in ("openai", "")


@dataclass
class Outcome:
    """How a run ended, decided from what happened to it and what it stored."""

    status: RunStatus = "done"
    failure: str | None = None
    stop_reason: str | None = None

    def caught(self, exc: BaseException) -> None:
        """The run raised: Stop cancelled it, or it failed outside the session's record."""
        if isinstance(exc, asyncio.CancelledError):
            self.status = "stopped"
        else:
            self.status = "failed"
            self.failure = (
                exc.for_user() if isinstance(exc, JupyterAgentError) else f"{type(exc).__name__}: {exc}"
            )

    def read(self, store: SqliteStore, session_id: str, since: str) -> None:
        """The last answer of the run says the rest: an error (a provider failure, the step
        cap) or why it was stopped (Stop, a budget, a repeated call)."""
        if self.failure is not None:
            return
        try:
            newest = store.message_before(session_id, None)
            found = store.messages(session_id, newest, parts=False) if newest else []
        except Exception:  # the run is over either way; its record says what it can
            return
        info = found[-1].info if found else None
        if not isinstance(info, AssistantMessage) or info.id < since or info.error is None:
            return
        if info.error.name == "aborted":
            self.status, self.stop_reason = "stopped", info.error.message
        else:
            self.status, self.failure = "failed", info.error.message

    def event(self, session_id: str, kind: RunKind, queued: bool) -> RunFinished:
        return RunFinished(
            session_id=session_id,
            kind=kind,
            status=self.status,
            failure=self.failure,
            stop_reason=self.stop_reason,
            queued=queued,
        )
