"""Close what a dead process left running: its tool parts and its open answer.

A run killed with SIGKILL (or a kernel that died) cannot mark its ``bash`` part as
stopped; the part would show "running" forever. When a session's lease is found
abandoned, or this process takes a session no live process holds, every pending or
running tool part becomes the error "[Tool execution was interrupted]" (what the model
is told for a dangling call anyway; ``metadata.interrupted``, partial output kept) and
the open assistant message gets an "interrupted" error.
"""

from __future__ import annotations

from typing import Any

from jupyter_agent.context.to_provider import INTERRUPTED as TOOL_INTERRUPTED
from jupyter_agent.core.clock import now_ms
from jupyter_agent.core.messages import (
    AssistantMessage,
    MessageError,
    ToolPart,
    ToolStateError,
    ToolStateRunning,
    ToolTimeError,
)

INTERRUPTED = "Interrupted: the process running this session ended before it finished."


def close_orphans(store: Any, session_id: str) -> int:
    """Turn unfinished tool parts and open answers of ``session_id`` into interrupted errors."""
    count = 0
    for entry in store.unfinished(session_id):  # not the whole session: a reopen stays fast
        info = entry.info
        touched = False
        for p in entry.parts:
            if not isinstance(p, ToolPart) or p.state.status not in ("pending", "running"):
                continue
            metadata: dict[str, Any] = {"interrupted": True}
            start = now_ms()
            if isinstance(p.state, ToolStateRunning):
                metadata = {**p.state.metadata, **metadata}
                start = p.state.time.start
            state = ToolStateError(
                input=p.state.input,
                error=TOOL_INTERRUPTED,
                metadata=metadata,
                time=ToolTimeError(start=start),
            )
            store.update_part(p.model_copy(update={"state": state}))
            touched = True
            count += 1
        if (
            isinstance(info, AssistantMessage)
            and info.time.completed is None
            and (touched or info.finish is None)
        ):
            error = info.error or MessageError(name="aborted", message=INTERRUPTED)
            time = info.time.model_copy(update={"completed": now_ms()})
            store.update_message(info.model_copy(update={"error": error, "time": time}))
            count += 1
    return count


def recover_abandoned(store: Any) -> int:
    """At start: close the leftovers of every session whose lease holder is gone."""
    count = 0
    for session_id in store.leases.stale():
        count += close_orphans(store, session_id)
        store.leases.drop(session_id)
    return count
