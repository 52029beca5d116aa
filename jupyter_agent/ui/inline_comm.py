"""The kernel's end of one inline-completion comm (``jupyter_agent_inline``).

Light on purpose: it greets with the state, hands requests to the kernel's completer on
the kernel's loop (a subshell thread may receive them) and turns the completer's answers
into wire messages. Nothing of the side panel's connection (history, sessions) is loaded.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from jupyter_agent.kernel.event_loop import call_on, running_loop
from jupyter_agent.kernel.inline_completer import CompletionState, InlineAsk, completer
from jupyter_agent.ui import inline_protocol as wire
from jupyter_agent.ui.completion_toggle import state_message

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent

log = logging.getLogger(__name__)


class InlineConnection:
    def __init__(self, comm: Any, agent: KernelAgent) -> None:
        self.comm = comm
        self.loop = running_loop()
        self.completer = completer(agent)
        self.completer.watchers.append(self.state)
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)

    def open(self) -> None:
        self.state(self.completer.state())

    def state(self, state: CompletionState) -> None:
        self._send(state_message(state))

    # ------------------------------------------------------------ InlineSink

    def delta(self, request_id: str, text: str) -> None:
        self._send(wire.InlineDeltaMsg(request_id=request_id, text=text))

    def done(self, request_id: str, reason: str, message: str = "") -> None:
        self._send(wire.InlineDoneMsg(request_id=request_id, reason=reason, message=message))

    # ------------------------------------------------------------ front end → kernel

    def _on_msg(self, msg: dict[str, Any]) -> None:
        call_on(self.loop, self.receive, msg.get("content", {}).get("data", {}))

    def receive(self, data: Any) -> None:
        try:
            request = wire.InlineRequestAdapter.validate_python(data)
        except ValidationError as exc:
            log.warning("an inline completion request this kernel does not understand: %s", exc)
            return
        if isinstance(request, wire.InlineCancelRequest):
            self.completer.cancel(self, request.request_id)
            return
        ask = InlineAsk(
            request_id=request.request_id,
            prefix=request.prefix,
            suffix=request.suffix,
            cells_above=tuple(request.cells_above),
            cell_type=request.cell_type,
            waited_ms=request.waited_ms,
        )
        self.completer.request(self, ask)

    def _on_close(self, _msg: Any = None) -> None:
        self.completer.cancel(self)
        if self.state in self.completer.watchers:
            self.completer.watchers.remove(self.state)

    def _send(self, message: wire.InlineStateMsg | wire.InlineDeltaMsg | wire.InlineDoneMsg) -> None:
        try:
            self.comm.send(message.model_dump(mode="json"))
        except Exception:  # the page went away mid-send; its close handler cleans up
            log.debug("inline completion send failed", exc_info=True)
