"""A cheap picture of a namespace and what changed between two pictures.

Each name maps to its object's ``id`` and a fingerprint read in constant time: the length
of a builtin container, the shape of a numpy/pandas/polars object. Nothing is copied and
no object is kept alive, so a snapshot of a namespace holding gigabytes costs microseconds
per name. A rebinding shows as a new ``id``; a change in place shows as a new fingerprint
(a row dropped, an item appended) or, when neither moves, through the code's AST
(``names.py``: ``df.loc[0, "x"] = 1``).
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

SKIP = frozenset({"In", "Out", "get_ipython", "exit", "quit"})
"""IPython's own names: never user state."""
_SIZED = frozenset({list, dict, set, bytearray})
_PLAIN = frozenset(
    {int, float, complex, str, bool, bytes, type(None), tuple, frozenset, range, type,
     types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType}
)  # fmt: skip
"""Immutable values, functions, classes and modules: their id says it all."""
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
    if kind in _PLAIN:
        return None
    return _array_shape(value, kind)


def _array_shape(value: Any, kind: type) -> Any:
    if not kind.__module__.startswith(_ARRAY_MODULES):
        return None
    try:
        shape = getattr(value, "shape", None)
    except Exception:  # a lazy frame may compute (and fail) on attribute access
        return None
    return shape if isinstance(shape, tuple) else None


def snapshot(namespace: Mapping[str, Any]) -> Snapshot:
    """Every tracked name's (id, fingerprint); inlined: it runs twice per cell."""
    found: Snapshot = {}
    for name, value in list(namespace.items()):
        if name[:1] == "_" or name in SKIP:
            continue
        kind = type(value)
        if kind in _SIZED:
            found[name] = (id(value), len(value))
        elif kind in _PLAIN:
            found[name] = (id(value), None)
        else:
            found[name] = (id(value), _array_shape(value, kind))
    return found


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
