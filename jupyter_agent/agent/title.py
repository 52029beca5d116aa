"""Name a session after its first exchange with the hidden ``title`` agent (small model if set)."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from jupyter_agent.context.overflow import max_output
from jupyter_agent.core.chat import ChatSystem, ChatUser
from jupyter_agent.core.messages import TextPart, UserMessage
from jupyter_agent.core.model_request import Connection, ModelRequest
from jupyter_agent.prompts import load_prompt

if TYPE_CHECKING:
    from jupyter_agent.agent.sessions import SessionService
    from jupyter_agent.agent.workspace import Workspace

log = logging.getLogger(__name__)
PLACEHOLDERS = ("New session - ", "Child session - ")
MAX_TITLE = 50
THINKING = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
"""Reasoning some models write before the answer; unclosed, the answer was never reached."""


def needs_title(title: str) -> bool:
    return not title or title.startswith(PLACEHOLDERS[0])


async def generate_title(
    workspace: Workspace, sessions: SessionService, session_id: str, model: str
) -> str | None:
    """Ask for a short title; a failure keeps the placeholder (titles are a nicety)."""
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
        return None  # a budget counts every call: none is made once it is used up
    title_model = workspace.config.small_model or model
    try:
        request = ModelRequest(
            model=title_model,
            messages=[
                ChatSystem(role="system", content=load_prompt("title")),
                ChatUser(role="user", content=text),
            ],
            max_tokens=max_output(workspace.describe(title_model)),
            connection=Connection(api_base=workspace.config.api_base, api_key=workspace.config.api_key()),
        )
        raw, cost = await workspace.client.request(request)
    except Exception:
        log.info("title generation failed", exc_info=True)
        return None
    # paid for the session: its totals, `%agent sessions`, the CLI's cost line and budgets count it
    workspace.store.add_call_cost(session_id, "title", title_model, cost)
    lines = (line.strip().strip("\"'").strip() for line in THINKING.sub("", raw).split("\n"))
    title = next((line for line in lines if line), "")[:MAX_TITLE].strip()
    if not title:
        return None
    sessions.recorder(session_id).update_session(session.model_copy(update={"title": title}))
    return title
