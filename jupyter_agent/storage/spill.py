"""Full text of truncated tool outputs, so the model can grep or page through it later.

Files are named ``tool_<sortable id>`` so a listing is in creation order, and they are
deleted after ``RETENTION_DAYS`` (docs/spec.md, "tool-output retention") by mtime, which
works across kernels without any index to keep in sync.
"""

from __future__ import annotations

import time
from pathlib import Path

from jupyter_agent.core import ids

RETENTION_DAYS = 7
DIRNAME = "tool-output"


def output_dir(store_dir: Path) -> Path:
    """``<store dir>/tool-output``, created on first use."""
    path = Path(store_dir) / DIRNAME
    path.mkdir(parents=True, exist_ok=True)
    return path


def new_output_path(store_dir: Path) -> Path:
    """A fresh ``tool-output/tool_<sortable id>`` for a tool that streams its output there."""
    return output_dir(store_dir) / ids.ascending("tool")


def save_output(store_dir: Path, text: str) -> Path:
    """Write ``text`` to ``tool-output/tool_<sortable id>`` and return the path.

    Undecodable characters (lone surrogates from odd subprocess output) are replaced
    rather than failing the tool call that is only trying to keep its output.
    """
    path = new_output_path(store_dir)
    try:
        path.write_text(text, encoding="utf-8", errors="replace")
    except OSError:  # a full disk: leave no half-written file that claims to be the output
        path.unlink(missing_ok=True)
        raise
    return path


def cleanup(store_dir: Path, max_age_days: float = RETENTION_DAYS, now: float | None = None) -> int:
    """Delete saved outputs older than ``max_age_days``; returns how many were removed.

    Another kernel may clean the same folder at the same time, so a file that vanished
    between listing and deleting is simply skipped.
    """
    folder = Path(store_dir) / DIRNAME
    if not folder.is_dir():
        return 0
    cutoff = (time.time() if now is None else now) - max_age_days * 86_400
    removed = 0
    for path in folder.glob("tool_*"):
        try:
            if path.is_file() and path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except OSError:  # vanished meanwhile, or a read-only folder: keep going
            continue
    return removed
