"""Which installed distributions a set of requirements pulls in (the install-shape tests)."""

from __future__ import annotations

import re
from importlib import metadata


def dist_name(requirement: str) -> str:
    """``Jupyter_Server>=2; extra == 'lab'`` → ``jupyter-server``."""
    return re.sub(r"[-_.]+", "-", re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]).lower()


def closure(requirements: list[str]) -> set[str]:
    """Distribution names of these requirements and of everything they require (extras' markers
    left out)."""
    seen: set[str] = set()
    todo = list(requirements)
    while todo:
        name = dist_name(todo.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo += [r for r in requires if "extra ==" not in r]
    return seen
