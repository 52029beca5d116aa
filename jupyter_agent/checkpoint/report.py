"""What a revert (or unrevert) did, in one report for the cell, the side panel and the CLI."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class RevertReport(BaseModel):
    kind: Literal["revert", "unrevert"] = "revert"
    message_id: str = ""
    cells: list[str] = Field(default_factory=list)
    """``In [3]: restored``, ``the cell the agent added (cell 4 (code)): removed``."""
    cells_pending: bool = False
    """The open notebook's cells are being restored through the side panel (said when done)."""
    files_restored: list[str] = Field(default_factory=list)
    files_removed: list[str] = Field(default_factory=list)
    variables: list[str] = Field(default_factory=list)
    staged_dropped: int = 0
    """Staged cell edits of the undone messages that were still waiting for review."""
    not_restored: list[str] = Field(default_factory=list)
    """``what: why`` for everything that could not be put back."""
    notes: list[str] = Field(default_factory=list)

    def lines(self, unrevert: str = "`%agent unrevert`") -> list[str]:
        """``unrevert``: how the user undoes the revert where they read it."""
        undo = self.kind == "revert"
        head = (
            f"Reverted to before {self.message_id}: the later messages are hidden"
            if undo
            else "Unreverted: the messages and the agent's changes are back"
        )
        out = [head + (f" ({unrevert} undoes this until the next prompt)." if undo else ".")]
        if self.cells:
            out.append("Cells: " + "; ".join(self.cells) + ".")
        elif self.cells_pending:
            out.append("Cells: being restored in the open notebook…")
        if self.files_restored:
            out.append("Files restored: " + ", ".join(self.files_restored) + ".")
        if self.files_removed:
            out.append("Files removed: " + ", ".join(self.files_removed) + ".")
        if self.variables:
            out.append("Variables restored: " + ", ".join(self.variables) + ".")
        if self.staged_dropped:
            out.append(f"Staged cell edits dropped (never applied): {self.staged_dropped}.")
        if not (
            self.cells or self.cells_pending or self.files_restored or self.files_removed or self.variables
        ):
            out.append("Nothing else to put back: the agent changed no files, cells or variables.")
        if self.not_restored:
            out.append("Could not restore:")
            out.extend(f"  - {line}" for line in self.not_restored)
        out.extend(f"Note: {note}" for note in dict.fromkeys(self.notes))
        return out

    def text(self, unrevert: str = "`%agent unrevert`") -> str:
        return "\n".join(self.lines(unrevert))
