"""The verification report: one row per code cell, a verdict, and its renderings.

The same model is the CLI's ``--json``, the table a ``%agent verify`` cell shows (HTML and
plain text), the side panel's table and what "Fix with agent" hands the agent. Exit codes:
0 reproducible, 1 not (a cell failed or its output differs), 2 usage (``core.errors``).
"""

from __future__ import annotations

import html
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from jupyter_agent.core.errors import EXIT_FAILED, EXIT_OK

Status = Literal["ran", "failed", "differs", "skipped", "not run"]
DIVERGENT = ("failed", "differs")


class DiffView(BaseModel):
    what: str
    """Which output: ``printed output``, ``text/html``, ``image/png``, ``error``…"""
    saved: str
    fresh: str


class CellReport(BaseModel):
    index: int
    """Position in the notebook, 0-based (markdown cells counted)."""
    cell_id: str | None = None
    saved_count: int | None = None
    """``In [n]`` in the saved notebook."""
    status: Status
    agent: bool = False
    error: str | None = None
    """``failed``: the error, one line (``NameError: name 'b' is not defined``)."""
    diff: DiffView | None = None
    hidden: list[str] = Field(default_factory=list)
    """Names it reads that no earlier cell defines (hidden state)."""
    agent_changed: list[str] = Field(default_factory=list)
    """Names it reads that the agent's code changed, not a cell."""
    notes: list[str] = Field(default_factory=list)
    """Each finding in a sentence (out of order, hidden state, skipped, no saved output)."""
    seconds: float = 0.0

    @property
    def label(self) -> str:
        return f"cell {self.index + 1}" + (f" [{self.saved_count}]" if self.saved_count is not None else "")

    def detail(self) -> str:
        bits = []
        if self.error:
            bits.append(self.error)
        if self.diff is not None:
            bits.append(f"{self.diff.what}: saved {self.diff.saved!r}, now {self.diff.fresh!r}")
        return " · ".join(bits + self.notes)


class VerifyReport(BaseModel):
    notebook: str
    kernel: str
    with_agent: bool = False
    cells: list[CellReport] = Field(default_factory=list)
    seconds: float = 0.0
    kernel_start_seconds: float = 0.0
    stopped: str | None = None
    """Why not every cell ran (stopped by the user, the total time limit, the kernel died)."""
    warnings: list[str] = Field(default_factory=list)
    """About the notebook as a whole (no kernelspec recorded, …)."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reproducible(self) -> bool:
        return self.stopped is None and not any(c.status in DIVERGENT for c in self.cells)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.reproducible else EXIT_FAILED

    def first_divergence(self) -> CellReport | None:
        return next((c for c in self.cells if c.status in DIVERGENT), None)

    def summary(self) -> str:
        code = [c for c in self.cells if not c.agent]
        ran = sum(1 for c in code if c.status != "not run")
        where = f"in a fresh {self.kernel} kernel, {self.seconds:.1f} s"
        if self.reproducible and not ran:
            return "Nothing to run: no code cells (agent cells are replayed only with --with-agent)."
        if self.reproducible:
            return (
                f"Reproducible: {ran} code cell{'s' * (ran != 1)} ran top to bottom {where}; "
                "their outputs match the saved ones."
            )
        counts = [
            f"{n} {word}"
            for word, n in (
                ("failed", sum(c.status == "failed" for c in self.cells)),
                ("differ" if sum(c.status == "differs" for c in self.cells) > 1 else "differs",
                 sum(c.status == "differs" for c in self.cells)),
            )
            if n
        ]  # fmt: skip
        first = self.first_divergence()
        lead = f"Not reproducible: {', '.join(counts) or 'stopped'} ({where})"
        stop = f"; {self.stopped}" if self.stopped else ""
        return lead + stop + (f". First divergence: {first.label}." if first else ".")

    # ------------------------------------------------------------ renderings

    def rows(self) -> list[tuple[str, str, str]]:
        return [(c.label, c.status, c.detail()) for c in self.cells]

    def text(self) -> str:
        rows = [("cell", "status", "detail"), *self.rows()]
        widths = [max(len(r[i]) for r in rows) for i in range(2)]
        lines = [f"{a.ljust(widths[0])}  {b.ljust(widths[1])}  {c}".rstrip() for a, b, c in rows]
        return "\n".join([f"Verify {self.notebook}", *lines, *self.warnings, self.summary()])

    def html(self) -> str:
        body = "".join(
            f'<tr data-status="{html.escape(c.status)}"><td>{html.escape(c.label)}</td>'
            f"<td>{html.escape(c.status)}</td><td>{html.escape(c.detail())}</td></tr>"
            for c in self.cells
        )
        verdict = "ok" if self.reproducible else "differs"
        warnings = "".join(f"<p>{html.escape(w)}</p>" for w in self.warnings)
        return (
            f'<div class="jp-agent-verify" data-verdict="{verdict}">'
            f"<p><b>Verify</b> <code>{html.escape(self.notebook)}</code></p>"
            f"<table><thead><tr><th>cell</th><th>status</th><th>detail</th></tr></thead>"
            f"<tbody>{body}</tbody></table>{warnings}<p>{html.escape(self.summary())}</p></div>"
        )

    def for_agent(self) -> str:
        """What the agent reads (the tool's output, the fix prompt): the table and verdict."""
        return self.text()
