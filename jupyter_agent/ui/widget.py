"""The live widget under an ``%agent`` cell: an anywidget fed by the bus; Stop, approvals back.

Everything goes out as custom messages (never a growing trait: re-sending the whole text
per token costs O(text²)); the delta coalescing and late-view replay live in
``stream.py``, shared with the side panel.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

import anywidget
import traitlets

from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import MessageWithParts
from jupyter_agent.kernel.event_loop import call_on, running_loop
from jupyter_agent.tools import kernel_kind
from jupyter_agent.ui.backlog import Backlog
from jupyter_agent.ui.stream import NoticeLevel, StatusState, ViewStream
from jupyter_agent.ui.widget_protocol import StatusMsg, UIMessage

log = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
REPLIES = ("once", "always", "reject")
CODE = (STATIC / "widget.js").read_text(encoding="utf-8")
"""The widget's ES module (with its Markdown renderer): sent once per page, see ``loader_esm``."""


@functools.lru_cache(maxsize=4)
def loader_esm(code: str, *, inline: bool) -> str:
    """The small module each widget carries instead of ``code`` (``static/loader.js``).

    The page keeps the imported module under a key derived from ``code``, so a newer
    package never reuses an older module; ``inline`` embeds ``code`` (the first widget of
    a kernel), otherwise the view asks the kernel for it only when the page lacks it.
    """
    digest = hashlib.sha1(code.encode("utf-8")).hexdigest()[:12]
    template = (STATIC / "loader.js").read_text(encoding="utf-8")
    inline_js = json.dumps(code).replace("</", "<\\/") if inline else "null"
    return template.replace("%(hash)s", digest).replace("%(inline)s", inline_js)


class AgentWidget(anywidget.AnyWidget):
    """Shows one session's activity; ``since_id`` hides messages earlier cells showed."""

    _esm = CODE
    """The class default; each instance sends ``loader_esm`` instead (code once per page)."""
    _css = (STATIC / "widget.css").read_text(encoding="utf-8")
    session_id = traitlets.Unicode("").tag(sync=True)
    can_compact = traitlets.Bool(False).tag(sync=True)
    """Small, fixed-size state only; streamed content never goes through traits."""
    contained = traitlets.Bool(False).tag(sync=True)
    """The kernel is contained (``tools/kernel_kind.py``): the status line says so."""
    _code_shipped: ClassVar[bool] = False
    """A widget of this kernel already carried the code inline."""

    def __init__(
        self,
        bus: Bus | None = None,
        session_id: str = "",
        *,
        on_stop: Callable[[], Any] | None = None,
        on_approve: Callable[..., Any] | None = None,
        on_compact: Callable[[], Any] | None = None,
        since_id: str = "",
        busy: bool = True,
    ) -> None:
        inline = not AgentWidget._code_shipped
        AgentWidget._code_shipped = True
        esm = loader_esm(CODE, inline=inline)
        super().__init__(
            session_id=session_id,
            can_compact=on_compact is not None,
            contained=kernel_kind.contained(),
            _esm=esm,
        )
        self.on_stop = on_stop
        self.on_approve = on_approve
        self.on_compact = on_compact
        self.stream = ViewStream(lambda content: self.send(content), session_id, since_id)
        self._loop = running_loop()
        self.on_msg(self._on_front_end)
        if bus is not None:
            self.attach(bus, session_id)
        self.post(StatusMsg(state="busy" if busy else "idle"))

    def __repr__(self) -> str:
        """The widget's ``text/plain``: a sentence for text viewers, not an object repr."""
        return (
            f"jupyter-agent session {self.session_id}: running; this live view is replaced "
            "by the transcript when the run ends."
        )

    # ------------------------------------------------------------ kernel → browser

    @property
    def backlog(self) -> Backlog:
        return self.stream.backlog

    def attach(self, bus: Bus, session_id: str) -> None:
        """Listen to ``session_id`` on ``bus`` (replacing any earlier subscription)."""
        if session_id != self.session_id:
            self.session_id = session_id
        self.stream.attach(bus, session_id)

    def detach(self) -> None:
        """Stop listening; what was shown stays (and stays replayable)."""
        self.stream.detach()

    def close(self) -> None:
        """Stop listening and close the widget's comm."""
        self.stream.close()
        super().close()

    def post(self, message: UIMessage) -> None:
        self.stream.post(message)

    def flush(self) -> None:
        self.stream.flush()

    def replay(self, messages: Iterable[MessageWithParts]) -> None:
        self.stream.replay(messages)

    def set_gauge(self, tokens: int, percent: int | None, cost: str = "") -> None:
        self.stream.set_gauge(tokens, percent, cost)

    def notice(self, text: str, level: NoticeLevel = "info") -> None:
        self.stream.notice(text, level)

    def status(self, state: StatusState, text: str = "") -> None:
        """``busy`` shows Stop; ``idle`` and ``error`` hide it."""
        self.stream.status(state, text)

    def done(self) -> None:
        """The run ended: flush, show the idle state, stop listening."""
        self.flush()
        self.status("idle")
        self.detach()

    # ------------------------------------------------------------ browser → kernel

    def _on_front_end(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        """ipywidgets ``on_msg`` callback: one dict per message from a view."""
        call_on(self._loop, self._handle_front_end, content)

    def _handle_front_end(self, content: Any) -> None:
        if not isinstance(content, dict):
            return
        kind = content.get("type")
        if kind == "ready":
            self.stream.replay_to(str(content.get("view", "")))
        elif kind == "code":  # a page without the module (reloaded, another front end)
            self.send({"kind": "code", "esm": CODE})
        elif kind == "stop":
            self._call(self.on_stop)
        elif kind == "approve":
            request_id, reply = content.get("request_id"), content.get("reply")
            reason = content.get("message")
            if isinstance(request_id, str) and reply in REPLIES:
                if isinstance(reason, str) and reason.strip() and reply == "reject":
                    self._call(self.on_approve, request_id, reply, reason)
                else:
                    self._call(self.on_approve, request_id, reply)
        elif kind == "compact":
            self._call(self.on_compact)

    @staticmethod
    def _call(callback: Callable[..., Any] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:  # a failing handler must not kill the comm
            log.exception("widget callback failed")
