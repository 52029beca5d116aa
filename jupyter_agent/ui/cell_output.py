"""A cell's output for one run: the live widget while it lasts, the static transcript after.

The widget is displayed with a display id; when the run ends (done, stopped or failed) that
display is updated in place with ``transcript.py``'s bundle and the widget is closed, so the
live view is never shown twice and the saved notebook holds HTML/Markdown/text only. The
session stays live in the side panel and for the next ``%agent``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from IPython.display import display

from jupyter_agent.core.messages import MessageWithParts
from jupyter_agent.tools import kernel_kind
from jupyter_agent.ui.transcript import RunStatus, summarize, transcript_bundle

log = logging.getLogger(__name__)


class NoView:
    """Stands in for the widget where no front end could show it (nbclient, papermill):
    no widget comm is opened, so no widget state (with its JavaScript) lands in the file."""

    session_id = ""

    def notice(self, text: str, level: str = "info") -> None: ...
    def status(self, state: str, text: str = "") -> None: ...
    def set_gauge(self, tokens: int, percent: int | None, cost: str = "") -> None: ...
    def done(self) -> None: ...
    def close(self) -> None: ...


class CellRun:
    """Shows ``widget`` now; ``finish`` swaps it for the transcript of what the run did."""

    def __init__(
        self,
        widget: Any,
        *,
        session_id: str,
        prompt: str,
        since: str,
        model: str = "",
        window: int | None = None,
    ) -> None:
        self.widget = widget
        self.session_id = session_id
        self.prompt = prompt
        self.since = since
        self.model = model
        self.window = window
        """The run's context window (its ``RunStarted``): the transcript's gauge, as the widget's."""
        self.notices: list[str] = []
        self.streamed = False
        """The run's text went to stdout as it streamed (no widget): ``text/plain`` leaves it out."""
        self.started = time.monotonic()
        self.handle = None if isinstance(widget, NoView) else display(widget, display_id=True)

    def notice(self, text: str, level: str = "info") -> None:
        """A notice in the live view. The saved transcript keeps only what the run produced
        (an error that ended it), not remarks about the setup (an unknown context window);
        without a live view (nbclient, papermill) the transcript is the only place to say it."""
        self.widget.notice(text, level)
        if level == "error" or isinstance(self.widget, NoView):
            self.notices.append(text)

    def status(self, text: str) -> None:
        """What the run waits for now, under the Stop button ("" for the usual "Working…")."""
        self.widget.status("busy", text)

    def finish(
        self,
        status: RunStatus,
        history: Callable[[], Iterable[MessageWithParts]],
        marker: tuple[dict[str, str], dict[str, Any]] | None = None,
    ) -> None:
        """Flush the live view, then replace it with the static transcript of this run
        (``marker``: the hidden state it left, ``ui/hidden_marker.py``)."""
        self.widget.done()
        try:
            messages = [m for m in history() if m.info.id >= self.since]
            summary = summarize(messages, status, time.monotonic() - self.started, self.model)
            summary.contained = kernel_kind.contained()
            data, metadata = transcript_bundle(
                session_id=self.session_id,
                prompt=self.prompt,
                messages=messages,
                summary=summary,
                notices=self.notices,
                context=self.window,
                streamed=self.streamed,
            )
        except Exception:  # the live view stays; what ran is in the store either way
            log.exception("could not build the transcript of the run")
            return
        metadata["jupyter_agent"]["since"] = self.since
        if marker is not None:
            extra, meta = marker
            data = {mime: _append(mime, text, extra.get(mime, "")) for mime, text in data.items()}
            metadata["jupyter_agent"].update(meta)
        if self.handle is not None:
            self.handle.update(data, metadata=metadata, raw=True)
        else:  # no display hook (plain Python): show it as a new output
            display(data, metadata=metadata, raw=True)
        self.widget.close()


def _append(mime: str, text: str, extra: str) -> str:
    """The marker at the end of the transcript (inside its root ``div`` in HTML)."""
    if not extra:
        return text
    if mime == "text/html" and text.endswith("</div>"):
        return text[: -len("</div>")] + extra + "</div>"
    return f"{text}\n\n{extra}"
