"""Shared file-walking helpers: which folders to skip, binary detection (globs: ``core/globs.py``).

``glob``, ``grep`` and ``list`` walk the tree themselves (no ``pathlib.glob``) so ignored
folders are pruned before descent: a ``node_modules`` with 100k files costs nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

SKIP_DIRS = frozenset(
    {
        ".git",
        "node_modules",
        ".jupyter-agent",
        "__pycache__",
        ".ipynb_checkpoints",
        ".venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".hg",
        ".svn",
    }
)
"""Never searched by glob/grep: version control, caches, the agent's own store."""

LIST_IGNORES = SKIP_DIRS | {
    "dist",
    "build",
    "target",
    "vendor",
    ".idea",
    ".vscode",
    ".cache",
    "coverage",
    ".coverage",
    "venv",
    "env",
    ".DS_Store",
}
"""Hidden by default in ``list`` (an overview, where build output is clutter)."""

BINARY_SUFFIXES = frozenset(
    {
        ".zip",
        ".tar",
        ".gz",
        ".bz2",
        ".xz",
        ".7z",
        ".exe",
        ".dll",
        ".so",
        ".dylib",
        ".o",
        ".a",
        ".class",
        ".jar",
        ".pyc",
        ".pyo",
        ".whl",
        ".bin",
        ".dat",
        ".parquet",
        ".feather",
        ".pkl",
        ".pickle",
        ".npy",
        ".npz",
        ".h5",
        ".hdf5",
        ".db",
        ".sqlite",
        ".wasm",
        ".mp3",
        ".mp4",
        ".mov",
        ".avi",
        ".ttf",
        ".otf",
        ".woff",
        ".woff2",
        ".ico",
        ".bmp",
        ".tif",
        ".tiff",
        ".xlsx",
        ".xls",
        ".docx",
        ".pptx",
    }
)


def is_binary(path: Path, sample: int = 8192) -> bool:
    """Known binary suffix, a NUL byte, or >30% control bytes in the first 8 KB."""
    if path.suffix.lower() in BINARY_SUFFIXES:
        return True
    try:
        with path.open("rb") as fh:
            chunk = fh.read(sample)
    except OSError:
        return False
    if not chunk:
        return False
    if b"\0" in chunk:
        return True
    control = sum(1 for b in chunk if b < 9 or 13 < b < 32)
    return control / len(chunk) > 0.3


def relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when inside it, else absolute (short but unambiguous)."""
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)


def walk_files(base: Path, skip: frozenset[str] = SKIP_DIRS) -> Iterator[tuple[Path, str]]:
    """Every file under ``base`` with its relative POSIX path; skipped folders are pruned.

    Symlinked folders are not entered (no cycles, no escaping the project).
    """
    for folder, dirs, names in os.walk(base):
        dirs[:] = sorted(d for d in dirs if d not in skip)
        rel_folder = os.path.relpath(folder, base)
        prefix = "" if rel_folder == "." else rel_folder.replace(os.sep, "/") + "/"
        for name in sorted(names):
            yield Path(folder) / name, prefix + name
