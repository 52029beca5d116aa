"""Inline completions for the notebook: which model, the call, the cleaned suggestion, its cost.

The kernel builds the context (``kernel/inline_completer.py``); this service turns it into
one ``CompletionCall`` (fill-in-the-middle and chat shapes both, the client picks), streams
the suggestion through ``context.inline_context.Suggestion`` and records what the call cost
as the session's ``completion`` line (``call_cost`` rows of kind "completion"): shown on
its own, never in the context gauge, not counted against the agent's budgets.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from jupyter_agent.agent.ports import CompletionClient
from jupyter_agent.context.inline_context import (
    CHARS_PER_TOKEN,
    InlineContext,
    Suggestion,
    chat_messages,
    fim_prompt,
)
from jupyter_agent.core.completion_call import CompletionCall
from jupyter_agent.core.cost import COMPLETIONS, CostTotal
from jupyter_agent.core.model_request import Connection
from jupyter_agent.core.stream_events import FinishStep, TextDelta
from jupyter_agent.prompts import load_prompt

if TYPE_CHECKING:
    from jupyter_agent.agent.workspace import Workspace


class InlineCompletions:
    def __init__(self, workspace: Workspace, client: CompletionClient) -> None:
        self.workspace = workspace
        self.client = client

    def model(self) -> str | None:
        """``completion.model``, else ``small_model``, else ``model`` (None: none configured)."""
        config = self.workspace.config
        return config.completion.model or config.small_model or config.model

    async def stream(self, ctx: InlineContext, session_id: str | None) -> AsyncIterator[str]:
        """The suggestion for ``ctx`` piece by piece; its cost is recorded for ``session_id``
        once the answer is complete (an aborted one reports no usage to count)."""
        model = self.model()
        if model is None:
            return
        config = self.workspace.config
        api_key = config.api_key() or ("not-needed" if config.api_base else None)
        call = CompletionCall(
            model=model,
            prompt=fim_prompt(ctx),
            suffix=ctx.suffix,
            messages=chat_messages(ctx, load_prompt("complete")),
            max_tokens=config.completion.max_tokens,
            options=config.options_for(model),
            connection=Connection(api_base=config.api_base, api_key=api_key),
        )
        shown = Suggestion(ctx.prefix)
        room = call.max_tokens * CHARS_PER_TOKEN * 2  # a server that ignores max_tokens is cut off
        async with contextlib.aclosing(self.client.complete_stream(call)) as events:
            async for event in events:
                if isinstance(event, TextDelta):
                    text = shown.feed(event.delta)[:room]
                    room -= len(text)
                    if text:
                        yield text
                    if room <= 0:
                        return  # closing the stream aborts the request; its usage is unknown
                elif isinstance(event, FinishStep) and session_id is not None:
                    self.workspace.store.add_call_cost(session_id, COMPLETIONS, model, event.cost)
        rest = shown.flush()[:room]
        if rest:
            yield rest

    def costs(self, session_id: str) -> CostTotal:
        """What the inline completions made for ``session_id`` cost."""
        return self.workspace.store.call_costs(session_id, kind=COMPLETIONS).get(session_id) or CostTotal()
