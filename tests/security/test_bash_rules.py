"""Issue 13.2: bash rules see every command — a model cannot hide ``rm`` from ``"rm *": "deny"``.

The model is the scripted model (in process): it sends the hostile command, the agent runs headless
with the README's own example rules, and the file the command targets must survive.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart

README_RULES = {"bash": {"git *": "allow", "rm *": "deny", "*": "ask"}}
RM = "rm -f victim.txt"

HIDDEN_RM = [
    f"git status; {RM}",
    f"git status\n{RM}",
    f"git status && {RM}",
    f"git status || {RM}",
    f"git status | {RM}",
    f"git log $({RM})",
    f"git log `{RM}`",
    f"git status; ({RM})",
    f"git status; {{ {RM}; }}",
    f"git diff <({RM})",
    f"git status > /dev/null 2>&1; {RM} >/dev/null",
    f"git status; if true; then {RM}; fi",
    "git status; for f in victim.txt; do rm -f $f; done",
    "git status; r\\m -f victim.txt",
    "git status; 'r'\"m\" -f victim.txt",
    "git status; $'\\x72m' -f victim.txt",
    "git status; /bin/rm -f victim.txt",
    "git status; \\rm -f victim.txt",
    f"git status; env {RM}",
    f"git status; env -i PATH=/usr/bin:/bin {RM}",
    f"git status; command {RM}",
    f"git status; builtin command {RM}",
    f"git status; exec {RM}",
    f"git status; nohup {RM}",
    f"git status; timeout 5 {RM}",
    f"git status; nice -n 5 {RM}",
    "git status; echo victim.txt | xargs rm -f",
    f"git status; bash -c '{RM}'",
    f'git status; sh -lc "{RM}"',
    f"git status; bash -c \"bash -c '{RM}'\"",
    f"git status; eval '{RM}'",
    f"git status; eval {RM}",
    "git status; find . -name victim.txt -exec rm -f {} \\;",
    f"git status; cat <<EOF\n$({RM})\nEOF",
    f"git status; cat <<< $({RM})",
    f"git status; x=$({RM})",
    f"git status; export X=$({RM})",
    f"git status; echo ${{X:-$({RM})}}",
    f"git status; trap '{RM}' EXIT",
    f"git status; shopt -s expand_aliases\nalias gone='{RM}'\ngone",
    f"git -c alias.x='!{RM}' x",
    f"git -c core.pager='{RM}' log",
    # only known when they run: asked, so refused headless
    f"git status; echo '{RM}' | bash",
    f"git status; bash <<< '{RM}'",
    f"git status; bash <<'EOF'\n{RM}\nEOF",
    "git status; c=rm; $c -f victim.txt",
    f'git status; eval "$(echo {RM})"',
    "git status; {rm,-f,victim.txt}",
    "git status; r?? -f victim.txt",
    "git status; 'unterminated",
]


def _runtime(make_runtime: Any, rules: dict[str, Any] | None = None) -> Any:
    return make_runtime(permission=rules if rules is not None else README_RULES)


async def _run_bash(runtime: Any, server: Any, command: str, agent: str = "build") -> ToolPart:
    server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]), Reply(text="ok"))
    sid = await runtime.prompt("do it", agent=agent)
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


@pytest.mark.parametrize("command", HIDDEN_RM)
async def test_rm_cannot_hide_from_a_deny_rule(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    part = await _run_bash(_runtime(make_runtime), scripted_model, command)
    assert part.state.status == "error", part.state
    assert "denied" in part.state.error or "needs approval" in part.state.error
    time.sleep(0.05)  # a command that slipped through would have run by now
    assert victim.exists()


@pytest.mark.parametrize("command", ["git status", "git status && git log --oneline -1 > /dev/null 2>&1"])
async def test_allowed_commands_still_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str
) -> None:
    part = await _run_bash(_runtime(make_runtime), scripted_model, command)
    assert part.state.status == "completed", part.state


async def test_the_denied_command_is_named(make_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    part = await _run_bash(_runtime(make_runtime), scripted_model, f"git status; {RM}")
    assert part.state.status == "error" and RM in part.state.error


async def test_unparseable_asks_even_when_everything_is_allowed(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "victim.txt").write_text("x")
    part = await _run_bash(_runtime(make_runtime, {}), scripted_model, "{rm,-f,victim.txt}")
    assert part.state.status == "error" and "could not be parsed" in part.state.error
    assert (tmp_path / "victim.txt").exists()


async def test_plain_allow_lets_unparseable_commands_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "victim.txt").write_text("x")
    part = await _run_bash(_runtime(make_runtime, {"bash": "allow"}), scripted_model, "{rm,-f,victim.txt}")
    assert part.state.status == "completed"
    assert not (tmp_path / "victim.txt").exists()


def _outside(tmp_path: Path) -> Path:
    """A file next to the project folder (the runtime's project root is ``tmp_path``)."""
    path = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    path.write_text("outside")
    return path


OUTSIDE = [
    "cat ../{name}",
    "rm -f ../{name}",
    "echo pwned > ../{name}",
    "echo pwned >> {path}",
    "ls; cp ../{name} copy.txt",
    "cd .. && rm -f {name}",
    "cd ..; cat {name}",
    "mkdir -p sub && cd sub && cd ../.. && rm -f {name}",
    "(cd ..); rm -f ../{name}",
    "grep -r outside ..",
    "tee ../{name} < /dev/null",
    "dd if=/dev/zero of=../{name} count=1",
    "bash -c 'rm -f ../{name}'",
    "mv ../{name} here.txt",
    "ln -s ../{name} link.txt && cat link.txt",
]


@pytest.mark.parametrize("template", OUTSIDE)
async def test_paths_leaving_the_project_ask_external_directory(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, template: str
) -> None:
    outside = _outside(tmp_path)
    command = template.format(name=outside.name, path=outside)
    part = await _run_bash(_runtime(make_runtime, {}), scripted_model, command)
    assert part.state.status == "error", part.state
    assert "external_directory" in part.state.error
    assert outside.read_text() == "outside"


async def test_a_link_pointing_outside_is_outside(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    outside = _outside(tmp_path)
    (tmp_path / "link.txt").symlink_to(outside)
    part = await _run_bash(
        _runtime(make_runtime, {}), scripted_model, "rm -f link.txt; truncate -s 0 link.txt"
    )
    assert part.state.status == "error" and "external_directory" in part.state.error
    assert outside.read_text() == "outside"


async def test_paths_inside_the_project_and_dev_null_do_not_ask(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "sub").mkdir()
    command = "cd sub && echo hi > a.txt 2>/dev/null && cat ../sub/a.txt && rm -f a.txt; (cd ..); ls sub"
    part = await _run_bash(_runtime(make_runtime, {}), scripted_model, command)
    assert part.state.status == "completed", part.state


def test_tree_sitter_is_imported_on_the_first_bash_check_only() -> None:
    """``%load_ext`` stays fast: loading the extension and building the tools does not import
    the parser; the first bash permission check does."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "shell.run_line_magic('load_ext', 'jupyter_agent')\n"
        "from jupyter_agent.kernel import warmup\n"
        "_ = warmup._started.is_set() and warmup.done.wait(300)\n"
        "from jupyter_agent.tools.registry import default_registry\n"
        "registry = default_registry()\n"
        "print('before', 'tree_sitter' in sys.modules)\n"
        "from jupyter_agent.tools.bash_parse import parse\n"
        "parse('ls; rm x')\n"
        "print('after', 'tree_sitter' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=360)
    assert "before False" in result.stdout and "after True" in result.stdout, result.stderr
