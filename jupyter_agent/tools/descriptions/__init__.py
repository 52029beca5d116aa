"""Model-facing tool descriptions, one ``<tool>.txt`` each."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def describe(name: str) -> str:
    return (resources.files(__name__) / f"{name}.txt").read_text(encoding="utf-8").strip()
