"""Where a notebook's agent data lives by default: ``<notebook dir>/.jupyter-agent/``
(``location.py`` decides when it lives elsewhere)."""

from __future__ import annotations

from pathlib import Path

DIRNAME = ".jupyter-agent"
DB_NAME = "sessions.db"


def prepare(folder: Path) -> Path:
    """Create the store folder ``folder`` with a ``.gitignore`` of ``*``.

    Transcripts can hold data and secrets from the notebook; ignoring the folder by
    default keeps them out of commits unless someone opts in (an edited ``.gitignore``
    is left as the user wrote it).
    """
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    return path


def store_dir(notebook_dir: Path) -> Path:
    """The store folder next to ``notebook_dir``, created."""
    return prepare(Path(notebook_dir) / DIRNAME)


def db_path(notebook_dir: Path) -> Path:
    """The session database next to ``notebook_dir`` (its folder is created on first use)."""
    return store_dir(notebook_dir) / DB_NAME
