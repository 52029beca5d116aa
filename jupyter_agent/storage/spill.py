"""Full text of truncated tool outputs, so the model can grep or page through it later."""

from __future__ import annotations

import time
from pathlib import Path

from jupyter_agent.core import ids

RETENTION_DAYS = 7


def output_dir(store_dir: Path) -> Path:
    path = store_dir / "tool-output"
    path.mkdir(parents=True, exist_ok=True)
    return path


def save_output(store_dir: Path, text: str) -> Path:
    """Write ``text`` to ``tool-output/tool_<sortable id>`` and return the path."""
    path = output_dir(store_dir) / ids.ascending("tool")
    path.write_text(text, encoding="utf-8", errors="replace")
    return path


def cleanup(store_dir: Path, max_age_days: float = RETENTION_DAYS, now: float | None = None) -> int:
    """Delete saved outputs older than ``max_age_days``; returns how many were removed."""
    folder = store_dir / "tool-output"
    if not folder.is_dir():
        return 0
    cutoff = (now if now is not None else time.time()) - max_age_days * 86_400
    removed = 0
    for path in folder.glob("tool_*"):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    return removed
