"""A cheap picture of a namespace and what changed between two pictures.

Each name maps to its object's ``id`` and a fingerprint read in constant time: the length
of a builtin container, the shape of a numpy/pandas/polars object. Nothing is copied and
no object is kept alive, so a snapshot of a namespace holding gigabytes costs microseconds
per name. A rebinding shows as a new ``id``; a change in place shows as a new fingerprint
(a row dropped, an item appended) or, when neither moves, through the code's AST
(``names.py``: ``df.loc[0, "x"] = 1``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SKIP = frozenset({"In", "Out", "get_ipython", "exit", "quit"})
"""IPython's own names: never user state."""
_SIZED = (list, dict, set, bytearray)
_ARRAY_MODULES = ("numpy", "pandas", "polars")

Snapshot = dict[str, tuple[int, Any]]
"""name → (id, fingerprint)."""


def tracked(name: str) -> bool:
    """User state: not IPython's history (``_``, ``_i3``, ``Out``) or private helpers."""
    return not name.startswith("_") and name not in SKIP


def fingerprint(value: Any) -> Any:
    """What changes when a mutable object is changed in place, read in O(1); None when unknown."""
    kind = type(value)
    if kind in _SIZED:
        return len(value)
    if kind.__module__.startswith(_ARRAY_MODULES):
        try:
            shape = getattr(value, "shape", None)
        except Exception:  # a lazy frame may compute (and fail) on attribute access
            return None
        return shape if isinstance(shape, tuple) else None
    return None


def snapshot(namespace: Mapping[str, Any]) -> Snapshot:
    return {name: (id(value), fingerprint(value)) for name, value in list(namespace.items()) if tracked(name)}


@dataclass(frozen=True)
class Change:
    added: frozenset[str] = frozenset()
    rebound: frozenset[str] = frozenset()
    """Bound to another object."""
    mutated: frozenset[str] = frozenset()
    """The same object, with another fingerprint."""
    removed: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.added or self.rebound or self.mutated or self.removed)


def diff(before: Snapshot, after: Snapshot) -> Change:
    added, rebound, mutated = set(), set(), set()
    for name, (ident, mark) in after.items():
        old = before.get(name)
        if old is None:
            added.add(name)
        elif old[0] != ident:
            rebound.add(name)
        elif old[1] != mark:
            mutated.add(name)
    removed = before.keys() - after.keys()
    return Change(frozenset(added), frozenset(rebound), frozenset(mutated), frozenset(removed))
