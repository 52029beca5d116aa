"""A notebook no frontend holds, edited on disk with nbformat (atomically), and how cells read.

``notebook_edit`` uses it when no side panel can edit the open document; a revert uses it
to undo cell edits in a closed notebook (``checkpoint/cells.py`` says how).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from jupyter_agent.checkpoint.cells import CellStep, apply_steps
from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.staging import REVIEW_KEY, StagedEdit

OUTPUT_CAP = 2_000


def output_text(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        text = "".join(output.get("text", ""))
    elif kind == "error":
        text = f"{output.get('ename')}: {output.get('evalue')}"
    else:
        data = output.get("data", {})
        images = [m for m in data if m.startswith("image/")]
        text = "".join(data.get("text/plain", "")) + "".join(f"[{m}]" for m in images)
    return text[:OUTPUT_CAP] + (f"… ({len(text) - OUTPUT_CAP} more chars)" if len(text) > OUTPUT_CAP else "")


def format_cell(index: int, cell: dict[str, Any]) -> str:
    source = "".join(cell.get("source", ""))
    lines = [f"[{index}] id={cell.get('id', '?')} {cell.get('cell_type', 'code')}", source]
    staged = (cell.get("metadata") or {}).get(REVIEW_KEY)
    if isinstance(staged, dict):  # the proposal is not the cell's source until the user accepts it
        lines.append(
            f"--- your staged {staged.get('action', 'edit')} waits for the user's review (not applied) ---"
        )
    outputs = [t for t in (output_text(o) for o in cell.get("outputs", []) or []) if t]
    if outputs:
        lines.append("--- outputs ---\n" + "\n".join(outputs))
    return "\n".join(lines)


def plain(cell: Any) -> dict[str, Any]:
    """An nbformat cell as plain JSON data (sources joined)."""
    data = {k: v for k, v in dict(cell).items()}
    if isinstance(data.get("source"), list):
        data["source"] = "".join(data["source"])
    return data


class FileBackend:
    """Edits the ``.ipynb`` on disk with nbformat, writing atomically."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def load(self) -> Any:
        # nbformat (and its JSON Schema) loads only when a notebook on disk is used
        import nbformat

        if not self.path.exists():
            raise ToolError(f"Notebook not found: {self.path}")
        return nbformat.read(self.path, as_version=4)

    def save(self, nb: Any) -> None:
        # nbformat (and its JSON Schema) loads only when a notebook on disk is used
        import nbformat

        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".ipynb.tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            nbformat.write(nb, fh)
        os.replace(tmp, self.path)

    async def read_cells(self) -> list[dict[str, Any]]:
        return [plain(c) for c in self.load().cells]

    async def insert_cell(self, index: int, source: str, cell_type: str) -> str:
        # nbformat (and its JSON Schema) loads only when a notebook on disk is used
        import nbformat

        nb = self.load()
        maker = nbformat.v4.new_markdown_cell if cell_type == "markdown" else nbformat.v4.new_code_cell
        cell = maker(source)
        nb.cells.insert(max(0, min(index, len(nb.cells))), cell)
        self.save(nb)
        return str(cell["id"])

    def _find(self, nb: Any, cell_id: str) -> int:
        for i, cell in enumerate(nb.cells):
            if cell.get("id") == cell_id:
                return i
        ids = ", ".join(str(c.get("id")) for c in nb.cells)
        raise ToolError(f"No cell with id '{cell_id}'. Cell ids: {ids}")

    async def replace_cell(self, cell_id: str, source: str) -> None:
        nb = self.load()
        cell = nb.cells[self._find(nb, cell_id)]
        cell["source"] = source
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        self.save(nb)

    async def delete_cell(self, cell_id: str) -> None:
        nb = self.load()
        del nb.cells[self._find(nb, cell_id)]
        self.save(nb)

    async def run_cell(self, cell_id: str) -> list[dict[str, Any]]:
        raise ToolError("Cells in a notebook on disk cannot be run; use the python tool instead.")

    async def stage(self, edit: StagedEdit) -> str:
        raise ToolError("Only an open notebook shows staged edits.")

    async def unstage(self, staged_ids: list[str]) -> None:
        return None

    async def apply_steps(self, steps: list[CellStep]) -> tuple[list[str], list[str]]:
        """Undo or redo cell edits in the file (a revert of a closed notebook)."""
        # nbformat (and its JSON Schema) loads only when a notebook on disk is used
        import nbformat

        nb = self.load()
        cells, done, problems = apply_steps([plain(c) for c in nb.cells], steps)
        nb.cells = [nbformat.from_dict(c) for c in cells]
        self.save(nb)
        return done, problems
