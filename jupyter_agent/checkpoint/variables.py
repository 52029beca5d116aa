"""Kernel variables saved before the agent's code runs, and put back by a revert.

Only the names the code may touch (``names.py``) are saved, once per prompt: a name the
code only rebinds keeps its old object (no copy); a name it may change in place is copied —
a pandas object as a copy-on-write copy (free until either side is written, pandas ≥ 3),
a NumPy array with ``copy()``, anything else pickled. Everything a prompt keeps counts against
``checkpoint.max_bytes``; the oldest prompts' copies are released first when the kernel holds
more than ``KEEP_PROMPTS_BUDGETS`` times that. A name that cannot be saved (unpicklable, a
generator, an open file or connection, over the budget) is recorded with the reason, so a
revert names it instead of skipping it silently. Copies live in the kernel's memory only.
"""

from __future__ import annotations

import io
import itertools
import pickle
import sys
import types
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from jupyter_agent.checkpoint.names import Touched
from jupyter_agent.core.messages import VariableSave

KEEP_PROMPTS_BUDGETS = 4
"""The kernel keeps copies of recent prompts up to this many times ``max_bytes`` in all."""
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), range, frozenset)
_BY_REFERENCE = (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


class Unsaveable(Exception):
    """Why a value cannot be saved (the text is what the revert report says).

    Never reaches a front end: ``_save_one`` keeps its text as the name's "unsaved" reason,
    which the revert's report shows."""


class _OverBudget(Exception):
    """Never reaches a front end: the copy that ran over the budget raises it, ``copy_value``
    words it as ``Unsaveable``."""


class _Counter(io.RawIOBase):
    """A pickle sink that keeps the bytes and stops once they pass the budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.parts: list[bytes] = []
        self.size = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        size = len(memoryview(data).cast("B"))
        self.size += size
        if self.size > self.budget:
            raise _OverBudget()
        self.parts.append(data if isinstance(data, bytes) else bytes(data))  # bytes are kept, not copied
        return size


@dataclass
class _Saved:
    value: Any
    size: int
    restore: Callable[[Any], Any]
    prompt: str


def _pandas_cow() -> bool:
    """Copy-on-write is on (always from pandas 3): a shallow copy is a true snapshot."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return False
    try:
        return int(pd.__version__.split(".")[0]) >= 3 or pd.options.mode.copy_on_write is True
    except Exception:  # an odd pandas build: deep copies are always right
        return False


def _is_pandas(value: Any) -> bool:
    module = type(value).__module__  # "pandas" from pandas 3, "pandas.core.frame" before
    return module == "pandas" or module.startswith("pandas.")


def _nbytes(value: Any) -> int:
    if _is_pandas(value):
        usage = value.memory_usage(deep=False) if hasattr(value, "memory_usage") else 0
        return int(getattr(usage, "sum", lambda: usage)())
    return int(getattr(value, "nbytes", 0) or sys.getsizeof(value))


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):,.1f} MiB"


def copy_value(value: Any, budget: int) -> tuple[Any, int, Callable[[Any], Any]]:
    """A copy of ``value`` (what is kept, its size, how to give it back), or Unsaveable."""
    module = type(value).__module__
    if _is_pandas(value) and hasattr(value, "copy"):
        size = _nbytes(value)
        if size > budget:
            raise Unsaveable(
                f"its {_mib(size)} are over the memory left for this prompt (checkpoint.max_bytes)"
            )
        deep = not _pandas_cow()
        return value.copy(deep=deep), size, lambda kept: kept.copy(deep=deep)
    if module == "numpy" and type(value).__name__ == "ndarray":
        size = int(value.nbytes)
        if size > budget:
            raise Unsaveable(
                f"its {_mib(size)} are over the memory left for this prompt (checkpoint.max_bytes)"
            )
        return value.copy(), size, lambda kept: kept.copy()
    if isinstance(value, types.GeneratorType):
        raise Unsaveable("a generator cannot be copied (its position is lost)")
    if isinstance(value, io.IOBase):
        raise Unsaveable("an open file cannot be copied")
    sink = _Counter(budget)
    try:
        pickle.Pickler(sink, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    except _OverBudget:
        raise Unsaveable("it is over the memory left for this prompt (checkpoint.max_bytes)") from None
    except RecursionError:
        raise Unsaveable("it is nested too deeply to copy") from None
    except Exception as exc:  # pickle raises many kinds: TypeError, PicklingError, AttributeError …
        raise Unsaveable(f"it cannot be pickled ({str(exc).splitlines()[0][:160]})") from None
    return sink.parts, sink.size, lambda parts: pickle.loads(b"".join(parts))


class VariableStore:
    """The copies one kernel keeps, by key; ``max_bytes`` per prompt."""

    def __init__(self, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._saved: dict[str, _Saved] = {}
        self._released: dict[str, str] = {}
        self._first: dict[tuple[str, str], str] = {}
        """(prompt, name) → the key of its first save in that prompt."""
        self._used: dict[str, int] = {}
        self._ids = itertools.count(1)

    def _key(self) -> str:
        return f"v{id(self):x}-{next(self._ids)}"

    def save(self, ns: MutableMapping[str, Any], touched: Touched, prompt: str) -> list[VariableSave]:
        """Save what ``touched`` names in ``ns`` before code runs there; one record per name."""
        out: list[VariableSave] = []
        for name in sorted(touched.names):
            if name.startswith("__"):
                continue
            first = self._first.get((prompt, name))
            if first is not None:  # saved by an earlier call of this prompt: that save covers it
                out.append(VariableSave(name=name, how="earlier", key=first))
                continue
            if name not in ns:
                if name in touched.bound:  # created by the code: a revert deletes it
                    out.append(self._record(prompt, name, VariableSave(name=name, how="absent")))
                continue
            out.append(self._record(prompt, name, self._save_one(ns[name], name, touched, prompt)))
        self._release_old(prompt)
        return out

    def _record(self, prompt: str, name: str, save: VariableSave) -> VariableSave:
        self._first[(prompt, name)] = save.key
        return save

    def _save_one(self, value: Any, name: str, touched: Touched, prompt: str) -> VariableSave:
        key = self._key()
        left = self.max_bytes - self._used.get(prompt, 0)
        if isinstance(value, _IMMUTABLE + _BY_REFERENCE) or name not in touched.mutated:
            size = 0 if isinstance(value, _IMMUTABLE + _BY_REFERENCE) else _nbytes(value)
            if size > left:
                why = (
                    f"keeping its {_mib(size)} is over the memory left for this prompt (checkpoint.max_bytes)"
                )
                return VariableSave(name=name, how="unsaved", key=key, why=why)
            self._keep(key, _Saved(value, size, lambda kept: kept, prompt))
            return VariableSave(name=name, how="kept", key=key)
        try:
            copied, size, restore = copy_value(value, left)
        except Unsaveable as exc:
            return VariableSave(name=name, how="unsaved", key=key, why=f"{type(value).__name__}: {exc}")
        self._keep(key, _Saved(copied, size, restore, prompt))
        return VariableSave(name=name, how="copied", key=key)

    def _keep(self, key: str, saved: _Saved) -> None:
        self._saved[key] = saved
        self._used[saved.prompt] = self._used.get(saved.prompt, 0) + saved.size

    def _release_old(self, current: str) -> None:
        """Release the oldest prompts' copies while the kernel holds too much."""
        limit = KEEP_PROMPTS_BUDGETS * self.max_bytes
        for prompt in sorted(self._used):
            if sum(self._used.values()) <= limit:
                return
            if prompt == current:
                continue
            for key in [k for k, s in self._saved.items() if s.prompt == prompt]:
                del self._saved[key]
                self._released[key] = "released to free memory (older prompts' copies go first)"
            self._used.pop(prompt, None)

    # ------------------------------------------------------------ putting back

    def restore(
        self, ns: MutableMapping[str, Any], saves: Iterable[VariableSave], kernel_note: str | None = None
    ) -> tuple[list[str], list[str], list[VariableSave]]:
        """Put each saved name back (the earliest save of each is given); returns the names
        restored, ``"name: why"`` for each one that could not be, and saves of what the names
        held just before (kept by reference) for an unrevert."""
        restored: list[str] = []
        problems: list[str] = []
        before: list[VariableSave] = []
        for save in saves:
            name = save.name
            if save.how == "unsaved":
                problems.append(f"{name}: not saved before the agent's code ran — {save.why}")
                continue
            if save.how == "earlier":
                problems.append(
                    f"{name}: changed again after this point, but saved only at the start of its prompt; "
                    "revert to that prompt to restore it"
                )
                continue
            value: Any = _ABSENT
            if save.how != "absent":
                kept = self._saved.get(save.key)
                if kept is None:
                    why = (
                        self._released.get(save.key)
                        or kernel_note
                        or "the kernel that saved it has restarted"
                    )
                    problems.append(f"{name}: {why}")
                    continue
                value = kept.restore(kept.value)
            key = self._key()
            if name in ns:
                self._saved[key] = _Saved(ns[name], 0, lambda kept: kept, "")
                before.append(VariableSave(name=name, how="kept", key=key))
            else:
                before.append(VariableSave(name=name, how="absent"))
            if value is _ABSENT:
                ns.pop(name, None)
            else:
                ns[name] = value
            restored.append(name)
        return restored, problems, before


_ABSENT = object()
