"""The package's layers hold: dependencies point down only (the contract is in pyproject.toml)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomllib

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


CYCLE_PACKAGES = {"agent", "config", "kernel", "mcp", "tools"}
"""They formed one import circle that ``ignore_imports`` hid (the sub-agent catalogue, the
notebook's path and the MCP manager's type, all now below ``tools/``)."""


def _contracts() -> list[dict[str, Any]]:
    linter = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    return list(linter["contracts"])


def _package(module: str) -> str:
    """``jupyter_agent.tools.task`` → ``tools``; the root package itself → ``""``."""
    parts = module.strip().split(".")
    return parts[1] if len(parts) > 1 else ""


def test_no_ignored_import_hides_the_circle() -> None:
    """An ``ignore_imports`` entry naming one of the circle's packages brings it back unseen:
    move what the lower package needs below it (or name a Protocol there) instead."""
    entries = [str(e) for c in _contracts() for e in c.get("ignore_imports", [])]
    named = [e for e in entries if {_package(m) for m in e.split("->")} & CYCLE_PACKAGES]
    assert named == [], f"ignore_imports hide an upward import: {named}"


def test_stale_ignored_imports_are_reported() -> None:
    """An entry naming a module that is gone must fail lint-imports, not be kept silently."""
    alerting = {c.get("unmatched_ignore_imports_alerting", "error") for c in _contracts()}
    assert alerting == {"error"}


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


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top, in functions and under ``TYPE_CHECKING``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", ["jupyter_agent/agent/ports.py", "tests/scripted_model.py"])
def test_the_model_port_and_the_scripted_model_name_no_adapter(path: str) -> None:
    """The port and the fast tier's model speak ``core/`` only (the request, the events, the
    errors): a client is swapped without reaching into ``providers/``. import-linter checks the
    port's runtime imports (pyproject.toml); this also reads ``TYPE_CHECKING`` blocks and the
    test model, which is outside the package."""
    adapter = sorted(m for m in _imported_modules(ROOT / path) if m.startswith("jupyter_agent.providers"))
    assert adapter == [], f"{path} imports {adapter}"


def test_the_scripted_model_loads_no_adapter() -> None:
    """Nothing the scripted model imports, however indirectly, loads ``providers/``."""
    probe = (
        "import sys; import scripted_model; "
        "print(sorted(m for m in sys.modules if m.startswith('jupyter_agent.providers')))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "[]"
