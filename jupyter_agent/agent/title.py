"""Name a session after its first prompt with the hidden ``title`` agent (small model if set).

The request goes beside the answer and nobody waits for it (``TitleTasks``): the run ends
when the answer does, and a title that comes later is stored and published then. A title
that fails (a server without a title to give, a key-less server that refused) is said once
in the debug log, and the session is named after the first words of its prompt instead.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jupyter_agent.context.overflow import max_output
from jupyter_agent.core.chat import ChatSystem, ChatUser
from jupyter_agent.core.messages import TextPart, UserMessage
from jupyter_agent.core.model_request import ModelRequest
from jupyter_agent.prompts import load_prompt

if TYPE_CHECKING:
    from jupyter_agent.agent.sessions import SessionService
    from jupyter_agent.agent.workspace import Workspace

log = logging.getLogger(__name__)
PLACEHOLDERS = ("New session - ", "Child session - ")
MAX_TITLE = 50
THINKING = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
"""Reasoning some models write before the answer; unclosed, the answer was never reached."""


FALLBACK_WORDS = 8


def needs_title(title: str) -> bool:
    return not title or title.startswith(PLACEHOLDERS[0])


def first_words(text: str, words: int = FALLBACK_WORDS, cap: int = MAX_TITLE) -> str:
    """A readable name from a prompt: its first words (cut at a word, ``…`` when cut)."""
    found = text.split()
    name = " ".join(found[:words])
    if len(name) > cap:
        name = name[:cap].rsplit(" ", 1)[0] if " " in name[:cap] else name[: cap - 1]
    return name + ("…" if len(found) > words or len(" ".join(found)) > len(name) else "")


@dataclass
class TitleTasks:
    """Titles being asked for: started beside a run, never awaited by it (``settle``: a
    command that is about to exit gives them a moment)."""

    pending: set[asyncio.Task[Any]] = field(default_factory=set)

    def start(
        self, workspace: Workspace, sessions: SessionService, session_id: str, model: str
    ) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(_quietly(generate_title(workspace, sessions, session_id, model)))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)
        return task

    async def settle(self, timeout: float) -> None:
        """Wait up to ``timeout`` seconds for the titles still coming on this event loop (a
        command's last words, a listing of the sessions); others go on by themselves."""
        loop = asyncio.get_running_loop()
        here = {t for t in self.pending if t.get_loop() is loop}
        if here:
            await asyncio.wait(here, timeout=timeout)


async def _quietly(work: Coroutine[Any, Any, str | None]) -> str | None:
    """A title nobody awaits must not end in "exception never retrieved" (a session deleted
    before its title came, a store closed by then)."""
    try:
        return await work
    except Exception:
        log.debug("the title could not be stored", exc_info=True)
        return None


async def generate_title(
    workspace: Workspace, sessions: SessionService, session_id: str, model: str
) -> str | None:
    """Ask for a short title; a failure (said once in the debug log) names the session
    after the first words of its prompt (titles are a nicety, a name is not)."""
    session = workspace.store.get_session(session_id)
    if session.parent_id or not needs_title(session.title):
        return None
    history = workspace.store.messages(session_id)
    first = next((m for m in history if isinstance(m.info, UserMessage)), None)
    if first is None:
        return None
    text = "\n".join(p.text for p in first.parts if isinstance(p, TextPart) and not p.synthetic)[:2000]
    if not text.strip():
        return None
    budget = workspace.config.budget.session_usd
    if budget is not None and sessions.recorder(session_id).spent().usd >= budget:
        return _name(sessions, session_id, first_words(text))  # a budget counts every call: none is made
    title_model = workspace.config.small_model or model
    try:
        request = ModelRequest(
            model=title_model,
            messages=[
                ChatSystem(role="system", content=load_prompt("title")),
                ChatUser(role="user", content=text),
            ],
            max_tokens=max_output(workspace.describe(title_model)),
            connection=workspace.connection(title_model),  # the run's own: key-less servers too
        )
        raw, cost = await workspace.client.request(request)
    except Exception as exc:  # once per session: the fallback name means it is never asked again
        log.debug(
            "no title for session %s (%s: %s); named after its prompt", session_id, type(exc).__name__, exc
        )
        return _name(sessions, session_id, first_words(text))
    # paid for the session: its totals, `%agent sessions`, the CLI's cost line and budgets count it
    workspace.store.add_call_cost(session_id, "title", title_model, cost)
    lines = (line.strip().strip("\"'").strip() for line in THINKING.sub("", raw).split("\n"))
    title = next((line for line in lines if line), "")[:MAX_TITLE].strip()
    return _name(sessions, session_id, title or first_words(text))


def _name(sessions: SessionService, session_id: str, title: str) -> str | None:
    """Store ``title`` unless the session got a name meanwhile (the user renamed it)."""
    session = sessions.store.get_session(session_id)
    if not title or not needs_title(session.title):
        return None
    sessions.recorder(session_id).update_session(session.model_copy(update={"title": title}))
    return title
