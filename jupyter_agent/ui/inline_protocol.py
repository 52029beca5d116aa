"""The inline completer's wire protocol over its own comm (``comm_target.INLINE_TARGET``).

The labextension's inline completion provider opens one comm per kernel and sends a
request on every change to a cell (``inline_complete``, replacing the one before) and a
cancel when the user typed on, moved away or it timed out. The kernel answers with the
suggestion as deltas and one ``inline_done`` per request, and with ``inline_state``
(on/off, the debounce) on open and whenever it changes. ``protocol.ts`` is generated from
these models too (``ui/tsgen.py``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore")


class InlineCompleteRequest(_Wire):
    """A suggestion at the cursor of the active cell (any earlier request is replaced)."""

    type: Literal["inline_complete"] = "inline_complete"
    request_id: str
    prefix: str
    """The cell's text before the cursor."""
    suffix: str = ""
    """The cell's text after the cursor."""
    cells_above: list[str] = Field(default_factory=list)
    """The sources of the code cells above, in notebook order (the kernel keeps what fits)."""
    cell_type: Literal["code", "markdown", "raw"] = "code"
    waited_ms: int = Field(default=0, ge=0)
    """How long the front end already waited for typing to pause (the kernel waits the rest
    of ``completion.debounce_ms``): a front end that debounces sends one request per pause."""


class InlineCancelRequest(_Wire):
    """The user typed on, left the cell, or the suggestion came too late: stop it."""

    type: Literal["inline_cancel"] = "inline_cancel"
    request_id: str


InlineRequest = InlineCompleteRequest | InlineCancelRequest
InlineRequestAdapter: TypeAdapter[InlineRequest] = TypeAdapter(
    Annotated[InlineRequest, Field(discriminator="type")]
)


class InlineStateMsg(_Wire):
    """Whether the kernel completes (sent on open, on ``%agent complete``, on a toggle)."""

    kind: Literal["inline_state"] = "inline_state"
    enabled: bool
    debounce_ms: int = 300
    context_chars: int = 8000
    """About how much text a request can use (``completion.max_context_tokens`` × 4): the
    front end sends no more of the cell and the cells above than this."""
    reason: str = ""
    """Why completion is off."""


class InlineDeltaMsg(_Wire):
    kind: Literal["inline_delta"] = "inline_delta"
    request_id: str
    text: str


class InlineDoneMsg(_Wire):
    """The request ended: ``done`` (complete), ``cancelled``, ``stale`` (a cell ran), ``busy``,
    ``off``, ``skipped`` (not a code cell) or ``error`` (``message`` says what)."""

    kind: Literal["inline_done"] = "inline_done"
    request_id: str
    reason: str
    message: str = ""


InlineMessage = InlineStateMsg | InlineDeltaMsg | InlineDoneMsg


def schema() -> dict[str, Any]:
    """Both directions, as roots for ``protocol.ts``."""
    to_front = TypeAdapter(Annotated[InlineMessage, Field(discriminator="kind")])
    return {
        "InlineRequest": InlineRequestAdapter.json_schema(mode="serialization"),
        "InlineMessage": to_front.json_schema(mode="serialization"),
    }
