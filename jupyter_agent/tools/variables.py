"""``variables``: what data the user has in the kernel — names, types, shapes, a closer look."""

from __future__ import annotations

import difflib
import reprlib
import sys
import types
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe

MAX_ROWS = 200
MAX_REPR = 2_000
HIDDEN = {"In", "Out", "exit", "quit", "get_ipython", "open"}

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxtuple, _SHORT.maxset = 4, 100, 100, 100
_SHORT.maxfrozenset, _SHORT.maxdeque, _SHORT.maxarray, _SHORT.maxdict = 100, 100, 100, 50
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 400, 400, 400
_CONTAINERS = (list, tuple, set, frozenset, dict)


def short_repr(value: Any, limit: int = MAX_REPR) -> str:
    """``repr(value)`` cut to about ``limit`` characters, built without the whole repr of a
    big string or container (a 1 GB string would need another gigabyte just to be cut)."""
    if isinstance(value, (str, bytes, bytearray)) and len(value) > limit:
        kind = "characters" if isinstance(value, str) else "bytes"
        return repr(value[:limit])[:limit] + f"… ({len(value) - limit:,} more {kind})"
    text = _SHORT.repr(value) if isinstance(value, _CONTAINERS) else repr(value)
    if len(text) > limit:
        text = text[:limit] + f"… ({len(text) - limit:,} more chars)"
    return text


def _size(value: Any) -> str:
    shape = getattr(value, "shape", None)
    if shape is not None and not callable(shape):
        return "×".join(str(s) for s in shape) if isinstance(shape, tuple) else str(shape)
    try:
        return f"len {len(value)}"
    except TypeError:
        return ""


def user_variables(shell: Any) -> dict[str, Any]:
    hidden = getattr(shell, "user_ns_hidden", {})
    return {
        name: value
        for name, value in shell.user_ns.items()
        if not name.startswith("_")
        and name not in HIDDEN
        and name not in hidden
        and not isinstance(value, types.ModuleType)
        and not (
            isinstance(value, type) or (callable(value) and getattr(value, "__module__", "") != "__main__")
        )
    }


def summarize_variable(name: str, value: Any) -> str:
    """A compact, model-friendly description: DataFrames get shape, dtypes and head."""
    kind = f"{type(value).__module__}.{type(value).__qualname__}".removeprefix("builtins.")
    lines = [f"{name}: {kind}"]
    try:
        pd = sys.modules.get("pandas")
        np = sys.modules.get("numpy")
        if pd is not None and isinstance(value, pd.DataFrame):
            lines.append(f"shape: {value.shape[0]} rows × {value.shape[1]} columns")
            lines.append("dtypes:\n" + value.dtypes.to_string(max_rows=MAX_ROWS))
            lines.append("head:\n" + value.head().to_string(max_colwidth=60, max_cols=30))
            lines.append(f"memory: {value.memory_usage(deep=True).sum() / 1e6:.1f} MB")
        elif pd is not None and isinstance(value, pd.Series):
            lines.append(f"dtype: {value.dtype}, length: {len(value)}")
            lines.append("head:\n" + value.head().to_string())
        elif np is not None and isinstance(value, np.ndarray):
            lines.append(f"shape: {value.shape}, dtype: {value.dtype}")
            if value.size and value.dtype.kind in "iuf" and value.size <= 10_000_000:
                lines.append(f"min: {value.min()}, max: {value.max()}")
            lines.append(short_repr(value))
        elif isinstance(value, (dict, list, tuple, set)):
            lines.append(f"length: {len(value)}")
            lines.append(short_repr(value))
        else:
            lines.append(short_repr(value))
    except Exception as exc:
        lines.append(f"(could not describe: {type(exc).__name__}: {exc})")
    return "\n".join(lines)


class VariablesArgs(BaseModel):
    name: str | None = Field(default=None, description="A variable to describe in detail; omit to list all")


class VariablesTool(Tool[VariablesArgs]):
    name = "variables"
    mutates = False
    description = describe("variables")
    Args = VariablesArgs

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        shell = ctx.services.shell
        if shell is None:
            raise ToolError("The variables tool needs a running IPython kernel.")
        found = user_variables(shell)
        if args.name:
            if args.name not in shell.user_ns:
                close = difflib.get_close_matches(args.name, list(found), n=3)
                hint = f" Did you mean: {', '.join(close)}?" if close else ""
                raise ToolError(f"No variable named '{args.name}'.{hint}")
            return ToolResult(output=summarize_variable(args.name, shell.user_ns[args.name]), title=args.name)
        if not found:
            return ToolResult(output="No user variables yet.", title="0 variables")
        rows = [f"{n}\t{type(v).__name__}\t{_size(v)}" for n, v in sorted(found.items())[:MAX_ROWS]]
        more = f"\n… {len(found) - MAX_ROWS} more" if len(found) > MAX_ROWS else ""
        return ToolResult(
            output="name\ttype\tsize\n" + "\n".join(rows) + more, title=f"{len(found)} variables"
        )
