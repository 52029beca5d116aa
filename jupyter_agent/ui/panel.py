"""The kernel's end of one side-panel connection (a ``jupyter_agent`` comm).

The panel shows the notebook's current session through a :class:`ViewStream` (the same
messages the cell widget gets), sends prompts / Stop / Compact / approvals / session
changes, and answers the notebook operations ``notebook_edit`` asks of it. Runs started
here go on the kernel's loop in the background, exactly like a ``%agent`` cell.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from jupyter_agent.agent import send
from jupyter_agent.agent.lifecycle import is_local
from jupyter_agent.agent.workspace import ConfigurationError
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.events import (
    AnyEvent,
    MessageUpdated,
    RunFinished,
    RunStarted,
    SessionCreated,
    SessionUpdated,
)
from jupyter_agent.kernel.event_loop import call_on, running_loop
from jupyter_agent.kernel.fix import NothingToFix, fix_prompt
from jupyter_agent.tools import kernel_kind
from jupyter_agent.tools.staging import ReviewOutcome
from jupyter_agent.ui import completion_toggle, panel_repro
from jupyter_agent.ui import panel_protocol as wire
from jupyter_agent.ui.history_pages import page_before
from jupyter_agent.ui.live_gauge import LiveGauge
from jupyter_agent.ui.notebook_bridge import PanelNotebookBridge
from jupyter_agent.ui.panel_lists import configured_models, fix_target
from jupyter_agent.ui.panel_mcp import PanelMcp
from jupyter_agent.ui.panel_runs import PanelRuns
from jupyter_agent.ui.panel_sessions import PanelSessions
from jupyter_agent.ui.panel_settings import PanelSettings
from jupyter_agent.ui.panel_undo import background, revert_here
from jupyter_agent.ui.render import permission_message
from jupyter_agent.ui.settings_protocol import SettingsRequest, SetupRequest
from jupyter_agent.ui.stream import ViewStream
from jupyter_agent.ui.widget_protocol import OlderMsg, ReviewMsg, to_wire

if TYPE_CHECKING:
    from jupyter_agent.kernel.agent import KernelAgent

log = logging.getLogger(__name__)


class PanelConnection(PanelMcp, PanelSessions, PanelRuns):
    def __init__(self, comm: Any, agent: KernelAgent) -> None:
        self.comm = comm
        self.agent = agent
        self.stream = ViewStream(self._send_dict)
        self.loop = running_loop()
        self.bridge = PanelNotebookBridge(self._send, self.loop)
        self._follow_off: Callable[[], None] | None = None
        self._gauge_off: Callable[[], None] | None = None
        self._gauge: LiveGauge | None = None
        self._completion_off: Callable[[], None] | None = None
        self.model = ""  # chosen in the panel (/model, the picker); "" is the configured one
        self._titles: dict[str, str] = {}
        """The titles last listed, by session id: a new one (the generated title) is sent."""
        self._fixing: set[str] = set()
        """Cells a fix runs for now (by id or label): a second Fix for one is refused."""
        self.verifying: asyncio.Task[Any] | None = None
        """A ``/verify`` running now (Stop cancels it)."""
        self.settings = PanelSettings(agent, self._send, self.settings_changed)
        comm.on_msg(self._on_msg)
        comm.on_close(self._on_close)  # one callback per comm: this one also unregisters
        agent.panels.append(self)

    # ------------------------------------------------------------ lifecycle

    def open(self, hello: wire.HelloRequest) -> None:
        """Greet the panel with the session list and show the current session's history."""
        try:
            runtime = self.agent.refresh()
            session_id = self.agent.current_session()
        except JupyterAgentError as exc:  # no model, a broken file, a store that cannot be used
            self._send(wire.HelloMsg(session_id="", sessions=[], busy=False, problem=exc.for_user()))
            return
        if self in self.agent.panels:  # the panel that greeted last edits for ``%agent`` cells
            self.agent.panels.remove(self)
            self.agent.panels.append(self)
        for handle in runtime.running():  # runs whose panel closed (a reloaded page) continue here
            if handle.bridge is None:
                handle.bridge = self.bridge
        self._send(self._greeting(session_id))
        if self._follow_off is None:
            self._follow_off = runtime.bus.subscribe(self._follow)
        self.send_mcp()
        if self._completion_off is None:  # the inline completion switch shows the kernel's state
            self._completion_off = completion_toggle.watch(self.agent, self._send)
        self.show(session_id)
        self._flush_notices("info")

    def _greeting(self, session_id: str) -> wire.HelloMsg:
        """The session list, the model prompts use and why a prompt would fail now (no model
        configured yet: the guidance, in the panel's empty state)."""
        runtime = self.agent.runtime
        problem: str | None
        try:
            model = runtime.model_name(self.model or None)
        except ConfigurationError as exc:
            model, problem = "", str(exc)
        else:
            problem = send.problem(runtime, model)
        return wire.HelloMsg(
            session_id=session_id,
            sessions=self._sessions(),
            busy=runtime.busy(session_id),
            model=model or None,
            models=configured_models(runtime.config, model),
            problem=problem,
            setup=problem is not None,  # no model, or no key for it: the setup view opens
            contained=kernel_kind.contained(),
        )

    def settings_changed(self) -> None:
        """The kernel read its configuration again (a file, ``%env``): the panel shows the
        model and problem as they are now, and the notice that they changed."""
        if self.stream.session_id:
            self._send(self._greeting(self.stream.session_id))
        self._flush_notices("info")

    def show(self, session_id: str) -> None:
        """Point the view at ``session_id``: reset, then the stored history and the gauge."""
        runtime = self.agent.runtime
        self._send(wire.ResetMsg(session_id=session_id))
        self.stream.reset(session_id)
        self.stream.attach(runtime.bus, session_id)
        self._page(session_id)
        panel_repro.remark(self, session_id)  # runs that left hidden state, still marked
        for request in runtime.permissions.pending(session_id):  # still waiting: answerable here too
            self.stream.post(permission_message(request))
        staged = runtime.pending_reviews(session_id)
        if staged:  # edits still waiting for review: Accept all / Reject all
            self.stream.post(ReviewMsg(pending=staged))
        # the session's own model until its next run says (``RunStarted``); none: tokens only
        model = runtime.session_model(session_id)
        busy = runtime.busy(session_id) or session_id in self.agent.running
        self.stream.status("busy" if busy else "idle", model=model.name if busy and model else None)
        if self._gauge_off is not None:  # the previous session's gauge
            self._gauge_off()
        limit = model.context if model is not None else None
        local = model is not None and is_local(model.name, runtime.config.api_base)
        listener = self._gauge = LiveGauge(self.stream, session_id, limit, runtime, local=local)
        self._gauge_off = runtime.bus.subscribe(listener)

    def _page(self, session_id: str, before: str | None = None) -> None:
        """Replay one page of stored messages (the newest, or those before ``before``) and
        say whether earlier ones exist; messages a pending revert hides are not shown."""
        revert = self.agent.runtime.get_session(session_id).revert
        if revert is not None and (before is None or revert.message_id < before):
            before = revert.message_id
        messages, older = page_before(self.agent.runtime, session_id, before)
        self.stream.replay(messages)
        self.stream.post(OlderMsg(session_id=session_id, before=older))

    def run_state(self, session_id: str, busy: bool) -> None:
        """A run started elsewhere (a ``%agent`` cell) in the session this panel shows."""
        if session_id == self.stream.session_id:
            self.stream.flush()
            self.stream.status("busy" if busy else "idle")
        if not busy:  # the run may have started MCP servers
            self.send_mcp()

    def _on_close(self, _msg: Any = None) -> None:
        if self in self.agent.panels:
            self.agent.panels.remove(self)
        self.stream.close()
        self.bridge.close()
        panel_repro.stop(self)  # nobody would see its table
        for off in (self._follow_off, self._gauge_off, self._completion_off):
            if off is not None:
                off()
        self._follow_off = self._gauge_off = self._completion_off = None
        for handle in self.agent.runtime.running():
            if handle.bridge is self.bridge:
                handle.bridge = None

    def _follow(self, event: AnyEvent) -> None:
        """Follow the notebook when a cell (``%agent new``/``switch``) moved to another session;
        any run starting or ending (a cell's, a ``%compact``) changes the picker's busy marks."""
        if isinstance(event, RunStarted | RunFinished):
            self.send_sessions()
            return
        if isinstance(event, SessionUpdated) and event.session.id in self._titles:
            if self._titles[event.session.id] != event.session.title:  # a title arrived (or a rename)
                self.send_sessions()
            return
        current = self.agent.session_id
        if current is None or current == self.stream.session_id:
            return
        if isinstance(event, MessageUpdated) and event.message.session_id == current:
            self.show(current)
        elif isinstance(event, SessionCreated) and event.session.id == current:
            self.show(current)
            self.send_sessions()

    # ------------------------------------------------------------ panel → kernel

    def completions_spent(self, session_id: str) -> None:
        """An inline completion was paid for ``session_id``: the gauge's cost line says so."""
        if self._gauge is not None and self._gauge.session_id == session_id:
            self._gauge.completions_spent()

    def _on_msg(self, msg: dict[str, Any]) -> None:
        call_on(self.loop, self._receive, msg)

    def _receive(self, msg: dict[str, Any]) -> None:
        data = msg.get("content", {}).get("data", {})
        try:
            request = wire.PanelRequestAdapter.validate_python(data)
        except ValidationError as exc:  # said without the input: it may hold a key typed in the setup
            wrong = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_input=False)
            )
            self.stream.notice(
                f"The side panel sent a request this kernel does not understand: {wrong}", "error"
            )
            return
        try:
            self.handle(request)
        except Exception as exc:  # a failing request must not kill the comm
            log.exception("side panel request failed")
            self.stream.notice(f"{type(exc).__name__}: {exc}", "error")

    def handle(self, request: wire.PanelRequest) -> None:
        try:
            self._handle_request(request)
        except JupyterAgentError as exc:  # no model, a broken file, an unknown session: what to do
            self.stream.notice(exc.for_user(), "error")

    def _handle_request(self, request: wire.PanelRequest) -> None:
        runtime = self.agent.runtime
        sid = self.stream.session_id
        if isinstance(request, wire.NotebookReply):
            self.bridge.resolve(request)
        elif isinstance(request, wire.ReadyRequest):
            self.stream.replay_to(request.view)
        elif isinstance(request, wire.HelloRequest):
            self.open(request)
        elif isinstance(request, wire.PromptRequest):
            self.prompt(request.text, request.context)
        elif isinstance(request, wire.ModelRequest):
            self.model = request.model.strip()
            self.stream.notice(f"Next prompts use {runtime.model_name(self.model or None)}.")
        elif isinstance(request, wire.StopRequest):
            stopped = [runtime.stop(sid), panel_repro.stop(self)]
            if not any(stopped):
                self.stream.status("idle")
        elif isinstance(request, wire.OlderRequest):
            if request.session_id == sid:
                self._page(sid, request.before)
        elif isinstance(request, wire.ApproveRequest):
            runtime.permissions.reply(request.request_id, request.reply, request.message)
        elif isinstance(request, wire.CompactRequest):
            self._start(self.agent.refresh().compact(sid, handle=self._handle()), sid)
        elif isinstance(request, wire.SessionsRequest):
            self.send_sessions()
        elif isinstance(request, wire.NewSessionRequest):
            self._new_session()
        elif isinstance(request, wire.DeleteSessionRequest):
            self._delete_session(request.session_id)
        elif isinstance(request, wire.SwitchSessionRequest):
            self._switch(self.agent.current_session(session_id=request.session_id))
        elif isinstance(request, wire.RenameSessionRequest):
            runtime.rename_session(request.session_id, request.title.strip())
            self.send_sessions()
        elif isinstance(request, wire.CompleteRequest):
            self._complete(request)
        elif isinstance(request, wire.McpRequest):
            self._mcp(request)
        elif isinstance(request, wire.FixRequest):
            self.fix(request)
        elif isinstance(request, SettingsRequest | SetupRequest):
            self.settings.handle(request)
        elif isinstance(request, wire.AddCellRequest):
            panel_repro.add_cell(self, request)
        elif isinstance(request, wire.VerifyRequest):
            panel_repro.start_verify(self, request)
        elif isinstance(request, wire.ReviewRequest):
            outcome = ReviewOutcome.model_validate(request.model_dump(exclude={"type"}))
            if outcome.edit is not None and not outcome.edit.notebook:  # the metadata keeps no local path
                outcome.edit.notebook = str(self.agent.notebook_path() or "")
            background(self, runtime.review(outcome, self.bridge), "recording the review")
        elif isinstance(request, (wire.RevertRequest, wire.UnrevertRequest)):
            revert_here(self, request)
        elif isinstance(request, wire.SetCompletionRequest):
            self.stream.notice(completion_toggle.toggle(self.agent, request.enabled))

    def fix(self, request: wire.FixRequest) -> None:
        """Fix with agent: the cell, its traceback and the variables it names go to the ``fix``
        agent, which proposes the change and replaces the cell (and runs it) once approved."""
        if request.verify:  # Fix with agent on a verification's table: its report goes instead
            panel_repro.fix_verify(self)
            return
        try:
            error = fix_target(self.agent.errors, request)
        except NothingToFix as exc:
            self.stream.notice(str(exc), "error")
            return
        key = error.cell_id or error.label
        if key in self._fixing:  # a double click, or the button and /fix
            self.stream.notice(f"Already fixing {error.label}.")
            return
        fix = fix_prompt(error, self.agent.shell, self.agent.runtime.save_output)
        self._fixing.add(key)
        done = lambda: self._fixing.discard(key)  # noqa: E731 - one line, read where it is used
        self.prompt(fix.words, agent="fix", expanded=fix.text, hidden=fix.instructions, done=done)

    def _flush_notices(self, level: Literal["info", "warn", "error"] = "warn") -> None:
        runtime = self.agent.runtime
        for notice in runtime.notices:
            self.stream.notice(notice, level)
        runtime.notices.clear()

    # ------------------------------------------------------------ kernel → panel

    def _send(self, message: wire.PanelMessage) -> None:
        self._send_dict(to_wire(message))

    def _send_dict(self, data: dict[str, Any]) -> None:
        try:
            self.comm.send(data)
        except Exception:  # the panel went away mid-send; its close handler cleans up
            log.debug("side panel send failed", exc_info=True)
