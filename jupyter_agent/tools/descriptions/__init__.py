"""Model-facing tool descriptions, one ``<tool>.txt`` each, kept out of the code."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def describe(name: str) -> str:
    """The text of ``<name>.txt`` in this package (read once)."""
    return (resources.files(__name__) / f"{name}.txt").read_text(encoding="utf-8").strip()
