"""The side panel's session picker: New, Delete, Switch and the list it shows.

A mixin of ``PanelConnection`` (``panel.py``): it uses the connection's agent, stream and
sender, and remembers the titles it listed (a generated title is sent when it arrives).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.panel_lists import session_list

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent
    from jupyter_agent.ui.stream import ViewStream


class PanelSessions:
    """The session requests of one panel connection."""

    agent: KernelAgent
    stream: ViewStream
    _titles: dict[str, str]

    def _send(self, message: wire.PanelMessage) -> None: ...
    def show(self, session_id: str) -> None: ...

    def send_sessions(self) -> None:
        """The session picker's list, the shown session selected."""
        self._send(wire.SessionsMsg(session_id=self.stream.session_id, sessions=self._sessions()))

    def _sessions(self) -> list[wire.SessionInfo]:
        shown = session_list(self.agent.runtime)
        self._titles = {s.id: s.title for s in shown}
        return shown

    def _new_session(self) -> None:
        """A fresh session, unless the one shown is still empty (New twice makes one)."""
        runtime = self.agent.runtime
        sid = self.stream.session_id
        if sid and not runtime.busy(sid) and not runtime.last_message(sid):
            self._switch(self.agent.current_session(session_id=sid))
            return
        self._switch(self.agent.current_session(new=True))

    def _delete_session(self, session_id: str) -> None:
        runtime = self.agent.runtime
        if runtime.busy(session_id) or session_id in self.agent.running:
            self.stream.notice("This session is running; stop it before deleting it.", "error")
            return
        runtime.delete_session(session_id)
        if self.agent.session_id == session_id:
            self.agent.session_id = None
        if self.stream.session_id == session_id:
            self._switch(self.agent.current_session())
        else:
            self.send_sessions()

    def _switch(self, session_id: str) -> None:
        self.show(session_id)
        self.send_sessions()
