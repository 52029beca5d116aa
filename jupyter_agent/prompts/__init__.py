"""Prompt texts live in ``*.txt`` files here, out of the code, so they read as prose."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def load_prompt(name: str) -> str:
    """The text of ``prompts/<name>.txt``; FileNotFoundError for unknown names."""
    resource = resources.files(__name__) / f"{name}.txt"
    if not resource.is_file():
        raise FileNotFoundError(f"no prompt named {name!r}")
    return resource.read_text(encoding="utf-8").strip()
