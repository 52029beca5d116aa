"""One line per live name an inline completion may need: what ``sales`` is, right now.

The names the cell uses come first (the one nearest the cursor first: ``sales.groupby("``
needs ``sales``'s columns), then the data the cell could use (DataFrames, Series, arrays),
the notebook's own functions and classes, the other values, and the modules with their
alias. Each line is built from the type and a few cheap attributes, never from a full
``repr``: a completion is asked for on every pause in typing, so a namespace of a few
hundred names must be described in milliseconds. A name that looks secret shows no value.
"""

from __future__ import annotations

import inspect
import itertools
import keyword
import re
import types
from collections.abc import Iterable, Mapping
from typing import Any

from jupyter_agent.core.redaction import looks_secret

MAX_NAMES = 60
"""Names described per request (the budget usually keeps fewer)."""
SCAN = 5_000
"""The latest names looked at beyond those the cell uses: a namespace of 100,000 names costs
no more per keystroke than one of 5,000."""
MAX_COLUMNS = 40
MAX_LINE = 300
HIDDEN = frozenset({"In", "Out", "exit", "quit", "get_ipython", "open"})
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ARRAY_MODULES = ("numpy", "torch", "jax", "xarray", "cupy", "tensorflow")
_SCALARS = (int, float, complex, bool, type(None))


def used_names(text: str) -> list[str]:
    """The identifiers in ``text``, the last one first, each once (keywords left out)."""
    seen: dict[str, None] = {}
    for word in reversed(_IDENT.findall(text)):
        if word not in seen and not keyword.iskeyword(word):
            seen[word] = None
    return list(seen)


def summarize(
    prefix: str, suffix: str, namespace: Mapping[str, Any], hidden: Iterable[str] = ()
) -> list[str]:
    """The lines for the names ``prefix`` and ``suffix`` use, then those the cell could use."""
    skip = HIDDEN | set(hidden)
    live = {n: v for n, v in namespace.items() if not n.startswith("_") and n not in skip}
    order = [n for n in used_names(prefix) + used_names(suffix) if n in live]
    chosen = dict.fromkeys(order)
    groups: list[list[str]] = [[], [], [], []]
    for name in itertools.islice(reversed(live), SCAN):  # the latest defined first
        if name not in chosen:
            groups[_rank(live[name])].append(name)
    for group in groups:
        chosen.update(dict.fromkeys(group))
        if len(chosen) >= MAX_NAMES:
            break
    lines = []
    for name in list(chosen)[:MAX_NAMES]:
        line = describe(name, live[name])
        if line:
            lines.append(line if len(line) <= MAX_LINE else line[: MAX_LINE - 1] + "…")
    return lines


def _rank(value: Any) -> int:
    """0 data, 1 the notebook's functions and classes, 2 other values, 3 modules."""
    if isinstance(value, types.ModuleType):
        return 3
    if _module(type(value)).startswith(("pandas", "polars", *_ARRAY_MODULES)):
        return 0
    if isinstance(value, (type, types.FunctionType)):  # their __module__ is a plain attribute
        return 1 if value.__module__ == "__main__" else 3
    return 2


def describe(name: str, value: Any) -> str | None:
    """``sales: DataFrame 120 rows × 3 columns: month (object), …`` and the like."""
    try:
        if looks_secret(name) and not callable(value) and not isinstance(value, types.ModuleType):
            return f"{name}: {type(value).__name__} (value hidden)"
        return f"{name}: {_what(value)}"
    except Exception:  # a broken object must not cost the suggestion
        return None


def _what(value: Any) -> str:
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    kind = type(value)
    module = _module(kind)
    if module.startswith(("pandas", "polars")):
        base = next((c.__name__ for c in kind.__mro__ if c.__name__ in ("DataFrame", "Series")), "")
        table = _table(value, base)
        if table is not None:
            return table
    if module.startswith(_ARRAY_MODULES):
        shape = getattr(value, "shape", None)
        if isinstance(shape, tuple):
            return f"{kind.__name__} shape {shape} {getattr(value, 'dtype', '')}".rstrip()
    if isinstance(value, _SCALARS):
        return f"{kind.__name__} = {value!r}"
    if isinstance(value, (str, bytes)):
        shown = repr(value[:60]) + ("…" if len(value) > 60 else "")
        return f"{kind.__name__} = {shown}"
    if isinstance(value, dict):
        keys = ", ".join(repr(k)[:30] for k in list(value)[:8]) + (", …" if len(value) > 8 else "")
        return f"dict, {len(value)} keys: {keys}" if value else "dict, empty"
    if isinstance(value, (list, tuple, set, frozenset)):
        return f"{kind.__name__}, {len(value)} items"
    if isinstance(value, type):
        return f"class {_qualified(value)}{_signature(value)}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"function {getattr(value, '__name__', '')}{_signature(value)}"
    return f"{kind.__name__} ({module})" if module and module != "__main__" else kind.__name__


def _table(value: Any, kind: str) -> str | None:
    """A DataFrame's size, columns and dtypes; a Series' name, dtype and length."""
    if kind == "DataFrame":
        columns = list(value.columns[:MAX_COLUMNS])
        dtypes = list(value.dtypes[:MAX_COLUMNS])
        shown = ", ".join(f"{c} ({t})" for c, t in zip(columns, dtypes, strict=False))
        more = len(value.columns) - len(columns)
        rows, width = value.shape
        return f"DataFrame {rows} rows × {width} columns: {shown}" + (f", … {more} more" if more > 0 else "")
    if kind == "Series":
        return f"Series {value.name!r} ({value.dtype}), {len(value)} rows"
    return None


def _module(kind: type) -> str:
    return str(getattr(kind, "__module__", "") or "")


def _qualified(kind: type) -> str:
    module = _module(kind)
    return kind.__qualname__ if module in ("__main__", "builtins") else f"{module}.{kind.__qualname__}"


def _signature(fn: Any) -> str:
    try:
        text = str(inspect.signature(fn))
    except (TypeError, ValueError):
        return ""
    return text if len(text) <= 160 else text[:159] + "…"
