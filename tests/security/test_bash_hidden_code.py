"""Commands bash runs from text that looks like data: quoted array subscripts, prompt
expansion, ``declare``/``unset`` (their own node in the grammar), ``coproc``, a
``mapfile -C`` callback, a script made on the spot (``bash <(…)``, ``source /dev/stdin``),
and long options shortened the GNU/git way. Found by an outside check after issue 13; each ran ``rm``
under ``"rm *": "deny"`` or wrote under the plan agent.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart

PLAN_SHELL = {"plan": {"permission": {"bash": "allow"}}}
"""A user who lets the plan agent run any command: ``bash_write`` must still ask."""
RULES = {"bash": {"rm *": "deny", "*": "allow"}}
"""Everything but ``rm`` is allowed: the deny rule must still hold."""
RM = "rm -f victim.txt"

HIDDEN_RM = [
    f"declare 'a[$({RM})]=1'",
    f"typeset -a 'a[$({RM})]=1'",
    f"readonly 'a[$({RM})]=1'",
    f"test -v 'x[$({RM})]'",
    f"[ -v 'x[$({RM})]' ]",
    f"[[ -v 'x[$({RM})]' ]]",
    f"[[ 'x[$({RM})]' -eq 1 ]]",
    f"printf -v 'x[$({RM})]' hi",
    f"read 'z[$({RM})]' <<< hi",
    f'test -v "x[\\$({RM})]"',
    f"X='$({RM})'; echo ${{X@P}}",
    f"coproc {RM}; wait",
    f'mapfile -t -C "{RM}" -c 1 arr <<< "a"',
    f'bash <(echo "{RM}")',
    f'source <(echo "{RM}")',
    f'bash /dev/stdin <<< "{RM}"',
]


async def _run_bash(runtime: Any, server: Any, command: str, agent: str = "build") -> ToolPart:
    server.queue(Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]), Reply(text="ok"))
    sid = await runtime.prompt("do it", agent=agent)
    return next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))


@pytest.mark.parametrize("command", HIDDEN_RM)
async def test_rm_hidden_in_data_is_not_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    part = await _run_bash(make_runtime(permission=RULES), scripted_model, command)
    assert part.state.status == "error", part.state
    time.sleep(0.05)
    assert victim.exists()


@pytest.mark.parametrize(
    "command",
    [
        "sort --out=PWNED a.txt",
        "(echo 'touch PWNED'; seq 1 300000) | sort -S 1K -T . --compress-program=sh",
        "git grep --open='touch PWNED;' a",
        "test -v 'x[$(touch PWNED)]'",
        "printf -v 'x[$(touch PWNED)]' hi",
        "declare 'a[$(touch PWNED)]=1'",
    ],
)
async def test_plan_refuses_code_hidden_in_readers(
    make_runtime: Any, scripted_server: Any, tmp_path: Path, command: str
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.txt"], check=True)
    runtime = make_runtime(agent=PLAN_SHELL)
    part = await _run_bash(runtime, scripted_server, command, agent="plan")
    assert part.state.status == "error" and "not interactive" in part.state.error, part.state
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("command", ["git log --oneline -1 || true", "awk '{print $(NF)}' a.txt", "ls -la"])
async def test_ordinary_commands_still_run_under_allow(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, command: str
) -> None:
    (tmp_path / "a.txt").write_text("a b\n")
    part = await _run_bash(make_runtime(permission=RULES), scripted_model, command)
    assert part.state.status == "completed", part.state


@pytest.mark.parametrize(
    "command", ["tree -R -H . -L 2", "tree -RH .", "sort --out=x a.txt", "file -C -m magic", "printf -v x hi"]
)
def test_writing_options_of_readers_are_not_read_only(command: str) -> None:
    """Readers with an option that writes (``tree -R`` writes ``00Tree.html`` files)."""
    from jupyter_agent.tools.bash_check import write_problem
    from jupyter_agent.tools.bash_parse import parse

    assert write_problem(parse(command)) is not None


@pytest.mark.parametrize(
    "template",
    ["git diff --no-index /dev/null ../{name}", "git -C .. show HEAD:{name}", "git --git-dir=../x log"],
)
async def test_git_reaching_outside_asks_external_directory(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, template: str
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("outside secret")
    part = await _run_bash(make_runtime(permission={}), scripted_model, template.format(name=outside.name))
    assert part.state.status == "error" and "external_directory" in part.state.error, part.state
