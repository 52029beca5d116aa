"""Which notebook this kernel belongs to, and whether a frontend has it open."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any


def find_notebook_path(user_ns: Mapping[str, Any], environ: Mapping[str, str]) -> Path | None:
    """``__session__`` (ipykernel ≥ 6.21), else ``JPY_SESSION_NAME``, else VS Code's variable."""
    for candidate in (
        user_ns.get("__session__"),
        environ.get("JPY_SESSION_NAME"),
        user_ns.get("__vsc_ipynb_file__"),
        environ.get("JUPYTER_AGENT_NOTEBOOK"),
    ):
        if isinstance(candidate, str) and candidate.endswith(".ipynb"):
            return Path(candidate).expanduser().resolve()
    return None


def frontend_attached(user_ns: Mapping[str, Any], environ: Mapping[str, str]) -> bool:
    """True when Jupyter server or VS Code serves this notebook (it may hold unsaved edits)."""
    return bool(environ.get("JPY_SESSION_NAME") or user_ns.get("__vsc_ipynb_file__"))
