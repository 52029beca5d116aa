"""The package's layers hold: dependencies point down only (the contract is in pyproject.toml)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_layers_contract() -> None:
    tool = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if tool is None:
        message = "import-linter is not installed (pip install -e '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    result = subprocess.run([tool, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def _inline_imports_without_reason(path: Path) -> list[int]:
    """Imports inside functions whose block has no comment saying why (line above or on it)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    guarded = {
        n.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
        if hasattr(n, "lineno")
    }
    found: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in guarded:
                continue
            row = node.lineno - 1
            while row > 0 and lines[row - 1].strip().startswith(("from ", "import ")):
                row -= 1  # a block of imports shares the comment above its first line
            first, above = lines[row], lines[row - 1].strip() if row else ""
            if "#" not in lines[node.lineno - 1] and "#" not in first and not above.startswith("#"):
                found.add(node.lineno)
    return sorted(found)


def test_inline_imports_say_why() -> None:
    """An import inside a function hides a dependency (or a cycle): allowed where a module
    must stay light to import (litellm, tree-sitter, the widget stack), with a one-line reason."""
    missing = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "jupyter_agent").rglob("*.py"))
        for line in _inline_imports_without_reason(path)
    ]
    assert not missing, "inline imports without a reason comment:\n" + "\n".join(missing)
