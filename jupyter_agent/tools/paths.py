"""Shared path helpers for file tools: ignored folders and binary detection."""

from __future__ import annotations

from pathlib import Path

IGNORED_DIRS = frozenset(
    {".git", "node_modules", ".jupyter-agent", "__pycache__", ".ipynb_checkpoints", ".venv",
     ".mypy_cache", ".pytest_cache", ".ruff_cache", "dist", "build"}
)


def is_ignored(path: Path, root: Path) -> bool:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        parts = path.parts
    return any(p in IGNORED_DIRS for p in parts[:-1]) or (path.is_dir() and path.name in IGNORED_DIRS)


def is_binary(path: Path, sample: int = 8192) -> bool:
    try:
        with path.open("rb") as fh:
            chunk = fh.read(sample)
    except OSError:
        return False
    return b"\0" in chunk


def relative(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
