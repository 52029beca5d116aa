"""The cells that raised in this kernel, remembered for ``%agent fix`` and "Fix with agent".

IPython calls ``post_run_cell`` after every cell; a failed one leaves its source, cell id,
execution count and the formatted traceback here (the last :data:`KEEP`). The exception
itself is not kept: its frames would hold the cell's locals (a large frame) alive.
"""

from __future__ import annotations

import traceback
from collections import OrderedDict
from typing import Any

from pydantic import BaseModel

KEEP = 20
"""Failed cells remembered (the newest)."""


class CellError(BaseModel):
    """A cell that raised, as the fix prompt needs it."""

    source: str
    ename: str
    evalue: str
    traceback: str
    """Plain text (no ANSI colours), the cell's own frames first."""
    count: int | None = None
    """The execution count (``In [3]``)."""
    cell_id: str | None = None
    """The notebook cell's id, when the front end sent it with the execution."""

    @property
    def label(self) -> str:
        return f"In [{self.count}]" if self.count is not None else (self.cell_id or "the last cell")


def _internal(filename: str) -> bool:
    return "/IPython/" in filename.replace("\\", "/")


def format_error(exc: BaseException) -> str:
    """The traceback as the user saw it, without IPython's own frames above the cell."""
    tb = exc.__traceback__
    while tb is not None and _internal(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb)).rstrip("\n")


class CellErrors:
    """Listens to the shell's cells; ``find`` answers which one to fix."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.errors: OrderedDict[str, CellError] = OrderedDict()

    def install(self) -> None:
        events = getattr(self.shell, "events", None)
        if events is not None:
            events.register("post_run_cell", self.after_cell)

    def after_cell(self, result: Any) -> None:
        exc = getattr(result, "error_in_exec", None) or getattr(result, "error_before_exec", None)
        info = getattr(result, "info", None)
        if info is None or getattr(info, "silent", False):
            return
        if exc is None:  # it runs now: whatever it raised before is fixed
            self.errors.pop(getattr(info, "cell_id", None) or "", None)
            return
        error = CellError(
            source=str(getattr(info, "raw_cell", "") or ""),
            ename=type(exc).__name__,
            evalue=str(exc),
            traceback=format_error(exc),
            count=getattr(result, "execution_count", None),
            cell_id=getattr(info, "cell_id", None) or None,
        )
        key = error.cell_id or f"count:{error.count}"
        self.errors.pop(key, None)
        self.errors[key] = error
        while len(self.errors) > KEEP:
            self.errors.popitem(last=False)

    def find(self, cell: str | None = None) -> CellError | None:
        """The latest failure (``cell`` None), else the one of ``In [N]`` or of a cell id."""
        if not self.errors:
            return None
        if cell is None:
            return next(reversed(self.errors.values()))
        wanted = cell.strip().strip("[]")
        for error in reversed(self.errors.values()):
            if wanted == error.cell_id or (wanted.isdigit() and error.count == int(wanted)):
                return error
        return None
