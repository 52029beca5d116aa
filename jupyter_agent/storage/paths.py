"""Where a notebook's agent data lives: ``<notebook dir>/.jupyter-agent/``."""

from __future__ import annotations

from pathlib import Path

DIRNAME = ".jupyter-agent"
DB_NAME = "sessions.db"


def store_dir(folder: Path) -> Path:
    """The store folder for ``folder``, created with a ``.gitignore`` of ``*`` on first use.

    Transcripts can hold data and secrets from the notebook; ignoring the folder by
    default keeps them out of commits unless someone opts in.
    """
    path = Path(folder) / DIRNAME
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return path
