"""The front door (issue "one front door"): front ends talk to ``Runtime`` and send prompts
through ``agent/send.py``; they never reach through it to the store or the services, and
only ``Workspace.resolve_model`` decides which model a run uses."""

from __future__ import annotations

import ast
from pathlib import Path

import jupyter_agent
from jupyter_agent.agent.runtime import Runtime

ROOT = Path(jupyter_agent.__file__).parent
FRONT_ENDS = ["cli.py", "session_cli.py", "magics", "ui", "kernel", "mcp"]
BEHIND_THE_DOOR = {"store", "sessions", "workspace", "runner"}


def _modules(names: list[str]) -> list[Path]:
    paths = [ROOT / n for n in names]
    return sorted(p for path in paths for p in ([path] if path.is_file() else path.rglob("*.py")))


def _reach_through(tree: ast.AST) -> list[tuple[int, str]]:
    """``runtime.store``, ``self.agent.runtime.sessions`` … (a runtime's attribute behind the door)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in BEHIND_THE_DOOR:
            owner = node.value
            name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
            if name in {"runtime", "rt"}:
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_front_ends_do_not_reach_through_the_runtime() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line} {text}"
        for path in _modules(FRONT_ENDS)
        for line, text in _reach_through(ast.parse(path.read_text()))
    ]
    assert not found, found


def test_the_check_sees_a_reach_through() -> None:
    tree = ast.parse("runtime.store.messages(s)\nself.agent.runtime.sessions.list()\nrt.bus")
    assert [text for _, text in _reach_through(tree)] == ["runtime.store", "self.agent.runtime.sessions"]


def test_the_runtime_offers_what_front_ends_need() -> None:
    for name in (
        "get_session",
        "messages",
        "last_message",
        "export",
        "revert",
        "wait_writable",
        "save_output",
    ):
        assert callable(getattr(Runtime, name)), name


def test_one_place_decides_the_model() -> None:
    """``Workspace.model_for`` is the rule; ``resolve_model`` applies it for a run, the facade's
    ``model_name`` only for the check before one (``send.problem``), nobody else."""
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in _modules(["."])
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "model_for"
    ]
    assert sorted(c.split(":")[0] for c in calls) == ["agent/runtime.py", "agent/workspace.py"], calls


def test_front_ends_send_prompts_through_one_path() -> None:
    """``agent/send.py`` checks the key, shows the notices and starts MCP; nobody repeats it."""
    steps = {"prompt", "preflight", "take_notices", "start_mcp"}
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.func.attr}"
        for path in _modules(["cli.py", "magics", "ui"])
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in steps
        and "runtime" in ast.unparse(node.func.value)
    ]
    assert not found, found
