"""A run as plain text on the cell's stdout, as it arrives: for front ends without a widget.

``jupyter console``, papermill's ``--log-output`` and nbclient's logs show a cell's stream
output while it runs but no widget: without this they showed nothing until the run ended.
The answer's text is written as it streams (O(text): each delta once), each tool call as one
line when it starts; the static transcript follows when the run ends (``cell_output.py``) and,
when the cell holds nothing else, replaces the streamed text in the saved notebook (a log has
it already), so the answer is not kept twice. A terminal cannot take printed text back, and
prints a display's ``text/plain``: that view of the transcript leaves out what streamed here
(``jupyter console`` showed the answer twice), its HTML and Markdown keep it.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable

from IPython.display import clear_output

from jupyter_agent.core.events import AnyEvent, PartUpdated
from jupyter_agent.session.rendering import render_part

FLUSH_EVERY = 0.05
"""Seconds between flushes, as the widget's throttle: the first words show as fast as there."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
"""Terminal controls in model text (escape sequences, carriage returns) would rewrite a
console or a CI log; they are shown as ``\x1b`` instead."""


def printable(text: str) -> str:
    """``text`` safe for a terminal or a log: controls spelled out, lone surrogates replaced."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text.encode("utf-8", "replace").decode("utf-8")


class ConsoleStream:
    """A bus listener printing one session's run; ``write`` defaults to ``sys.stdout``."""

    def __init__(
        self, session_id: str, write: Callable[[str], object] | None = None, *, replace: bool = False
    ) -> None:
        self.session_id = session_id
        self._write = write
        self._replace = replace
        self._tools: set[str] = set()
        self._at_line_start = True
        self._flushed = 0.0
        self._attempt_text = False
        """Text of the current model call is out: a retry must say the answer starts over."""

    def __call__(self, event: AnyEvent) -> None:
        if not isinstance(event, PartUpdated) or event.part.session_id != self.session_id:
            return
        shown = render_part(event.part)
        if shown is None:
            return
        if shown.boundary:
            self._attempt_text = False
        elif event.delta and shown.text and not shown.aside:  # the answer streams, the thinking does not
            self._attempt_text = True
            self._emit(event.delta)
        elif shown.name and event.part.id not in self._tools and shown.status != "pending":
            self._tools.add(event.part.id)
            self._line(f"[{shown.name}{' ' + shown.summary if shown.summary else ''}]")
        elif shown.attempt is not None and self._attempt_text:
            # the text above is dropped from the session; what follows replaces it
            self._line(f"[retrying: {shown.error}]")
            self._attempt_text = False

    def finish(self) -> None:
        """End the streamed text with a newline, so the transcript starts on its own line."""
        if not self._at_line_start:
            self._emit("\n")
        self._flush()
        if self._replace and self._write is None:
            clear_output(wait=True)  # cleared when the transcript arrives, not before

    def _line(self, text: str) -> None:
        self._emit(("" if self._at_line_start else "\n") + text + "\n")

    def _emit(self, text: str) -> None:
        text = printable(text)
        (self._write or sys.stdout.write)(text)
        self._at_line_start = text.endswith("\n")
        if time.monotonic() - self._flushed >= FLUSH_EVERY:
            self._flush()

    def _flush(self) -> None:
        """ipykernel sends what was written every 0.2 s on its own; sooner reads better."""
        self._flushed = time.monotonic()
        if self._write is None:
            sys.stdout.flush()
