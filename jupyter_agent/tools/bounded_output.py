"""A tool's output as it comes (a command's pipe, code's prints), bounded in memory and on disk.

``yes`` writes gigabytes in seconds: kept whole, it would take the kernel down with it.
So only the two ends are kept in memory (each within the truncation limits: all the model
is shown), and once the output is longer than that it streams, redacted, to a file under
``tool-output/``. That file stops at ``max_saved_bytes`` with a line saying so, and
``capped`` tells the tool to stop whatever is writing.
"""

from __future__ import annotations

import codecs
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from jupyter_agent.core.redaction import StreamRedactor
from jupyter_agent.tools.base import OutputLimits, SavedOutput

PROGRESS_TAIL = 30_000
"""Characters of the newest output shown live while a tool runs."""


def size_text(n: int) -> str:
    """``50 MB`` / ``64 KB`` / ``12 bytes``: a cap as people read it."""
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n} bytes"


class BoundedOutput:
    """Text in, the ends kept; everything past the limits saved to a file up to a cap."""

    def __init__(
        self,
        limits: OutputLimits,
        new_file: Callable[[], Path] | None = None,
        on_cap: Callable[[], None] | None = None,
    ) -> None:
        self.limits = limits
        self._new_file = new_file
        self._on_cap = on_cap
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._redactor = StreamRedactor()
        self._keep = max(limits.max_bytes, PROGRESS_TAIL)
        self._head: list[str] = []
        self._head_chars = 0
        self._tail: list[str] = []
        self._tail_chars = 0
        self._file: BinaryIO | None = None
        self.path: Path | None = None
        self.error: str | None = None
        self.bytes = 0
        self.newlines = 0
        self.spilled = False
        """More than the limits came: only the ends are kept in memory."""
        self.capped = False
        """``max_saved_bytes`` came: the rest is dropped (the file says where it stops)."""

    # ------------------------------------------------------------ in

    def feed(self, data: bytes) -> None:
        """Raw bytes (a pipe): decoded as UTF-8, undecodable bytes replaced."""
        if not self.capped:
            self.write(self._decoder.decode(data))

    def write(self, text: str) -> None:
        if self.capped or not text:
            return
        self._take(self._redactor.feed(text))

    def close(self) -> None:
        """The writer is done: the held-back characters go out, the file is closed."""
        if not self.capped:
            self._take(self._redactor.feed(self._decoder.decode(b"", final=True)))
            self._take(self._redactor.flush())
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    def discard(self) -> None:
        """A stopped tool: its partial file is nobody's output."""
        self.close()
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.path = None

    def _take(self, text: str) -> None:
        if not text or self.capped:
            return
        raw = text.encode("utf-8", errors="replace")  # a lone surrogate from print() included
        room = self.limits.max_saved_bytes - self.bytes
        if len(raw) > room:
            raw = raw[: max(room, 0)]
            text = raw.decode("utf-8", errors="ignore")  # not half a character
            self.capped = True
        self.bytes += len(raw)
        self.newlines += text.count("\n")
        if not self.spilled:
            self._head.append(text)
            self._head_chars += len(text)
            if self.bytes > self.limits.max_bytes or self.newlines >= self.limits.max_lines:
                self._spill()
        else:
            self._add_tail(text)
            self._save(raw)
        if self.capped:
            self._cut()

    # ------------------------------------------------------------ memory

    def _add_tail(self, text: str) -> None:
        self._tail.append(text)
        self._tail_chars += len(text)
        if self._tail_chars > 2 * self._keep:
            joined = "".join(self._tail)[-self._keep :]
            self._tail, self._tail_chars = [joined], len(joined)

    def _spill(self) -> None:
        """Past the limits: keep the ends, and save what came so far to the file."""
        whole = "".join(self._head)
        self.spilled = True
        self._head, self._head_chars = [whole[: self._keep]], min(len(whole), self._keep)
        self._tail, self._tail_chars = [], 0
        self._add_tail(whole[-self._keep :])
        if self._new_file is not None:
            try:
                self.path = self._new_file()
                self._file = self.path.open("wb")
            except OSError as exc:
                self._failed(exc)
        self._save(whole.encode("utf-8", errors="replace"))

    def _save(self, raw: bytes) -> None:
        if self._file is None:
            return
        try:
            self._file.write(raw)
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        """A full disk, a read-only folder: no half file claims to be the output."""
        self.error = exc.strerror or str(exc)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
        self.path = None

    def _cut(self) -> None:
        self._save(f"\n\n[output cut here: it passed {size_text(self.limits.max_saved_bytes)}]\n".encode())
        if self._on_cap is not None:
            self._on_cap()

    # ------------------------------------------------------------ out

    def tail(self, limit: int = PROGRESS_TAIL) -> str:
        """The newest output (live progress), with the characters still held back."""
        source = self._tail if self.spilled else self._head
        if len(source) > 8:
            joined = "".join(source)
            source[:] = [joined]
        return ("".join(source) + self._redactor.carry)[-limit:]

    def text(self, direction: str = "tail") -> str:
        """All of it when it fit; else the end the model is shown (``head`` or ``tail``)."""
        if not self.spilled:
            return "".join(self._head)
        return "".join(self._head if direction == "head" else self._tail)

    def saved(self, extra: str = "") -> SavedOutput | None:
        """What the runner needs to cut the preview (None when everything is in ``text``);
        ``extra`` is what the tool adds after the output (notes, exit code)."""
        if not self.spilled:
            return None
        return SavedOutput(
            path=str(self.path) if self.path is not None else None,
            total_bytes=self.bytes + len(extra.encode("utf-8", errors="replace")),
            total_lines=self.newlines + extra.count("\n") + 1,
            error=self.error or (None if self._new_file is not None else "no folder to save it in"),
        )

    def cap_note(self) -> str:
        return (
            f"The output passed {size_text(self.limits.max_saved_bytes)} "
            f"(tool_output.max_saved_bytes); the rest was not kept"
        )
