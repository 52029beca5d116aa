"""Issue 38.2 and 38.3: the ``python`` tool in an ordinary kernel is held to the file tools'
rules, and an administrator can require a contained kernel.

The reproductions on main: under ``"bash": "deny"`` the python tool ran
``subprocess.run(["rm", …])``; it wrote outside the project and into protected files that
``write`` and ``edit`` could not touch, and read ``~/.ssh`` that the sandbox hides from
``bash``. Here the model's code runs through the whole loop (the in-process scripted model)
in a real in-process IPython shell, as in an ordinary kernel; the user's own cells in the
same shell are not guarded.

The guard is a rule, not a sandbox (docs/security.md): the last tests pin down what a
determined program can still do, so the page stays true.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import run_tool
from IPython.core.interactiveshell import InteractiveShell
from scripted_server import Reply, ToolCall
from test_store_and_cells import LiveNotebook

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.agent.run import RunHandle
from jupyter_agent.config import load_config
from jupyter_agent.core.messages import ToolPart
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools import python_guard
from jupyter_agent.tools.registry import register_kernel_tools
from jupyter_agent.tools.services import Services

REFUSED = "GuardRefused: Refused:"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with a planted key (the agent must not read it)."""
    folder = tmp_path / "home"
    (folder / ".ssh").mkdir(parents=True)
    (folder / ".ssh" / "id_test").write_text("PRIVATE KEY\n")
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def shell() -> Iterator[Any]:
    sh = InteractiveShell.instance()
    sh.reset()
    yield sh
    sh.events.callbacks["post_run_cell"].clear()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The notebook's folder, where the kernel runs (relative paths start there)."""
    folder = tmp_path / "project"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def kernel_runtime(project: Path, shell: Any, model: Any, kernel: str = "ordinary", **settings: Any) -> Any:
    """A runtime as an ordinary kernel builds it (the shell, the kernel tools)."""
    config = load_config(project, {"model": model.model, "api_base": model.base_url, **settings})
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(project),
        project_root=project,
        working_dir=project,
        client=model,
        services=Services(shell=shell, kernel=kernel),
    )
    register_kernel_tools(runtime.registry)
    runtime.generate_titles = False
    return runtime


async def python(runtime: Any, model: Any, code: str) -> str:
    part = await run_tool(runtime, model, "python", code=code)
    assert part.state.status == "completed", part.state
    return str(part.state.output)


async def test_the_agents_code_is_held_to_the_rules(
    project: Path, shell: Any, scripted_model: Any, outside: Path, home: Path
) -> None:
    runtime = kernel_runtime(project, shell, scripted_model, permission={"bash": "deny"})
    said = await python(runtime, scripted_model, "import subprocess\nsubprocess.run(['rm', '-f', 'x'])")
    assert REFUSED in said and "does not start processes" in said and "bash tool" in said
    for code in ("import os\nos.system('true')", "import os\nos.execv('/bin/true', ['true'])"):
        assert REFUSED in await python(runtime, scripted_model, code)
    said = await python(runtime, scripted_model, f"open({str(outside / 'x.txt')!r}, 'w').write('x')")
    assert REFUSED in said and '"external_directory" asks' in said and f"{outside}/*" in said
    assert not (outside / "x.txt").exists()
    said = await python(runtime, scripted_model, "open('mine.txt', 'w').write('ok')\nprint('wrote')")
    assert said.startswith("wrote") and (project / "mine.txt").read_text() == "ok"
    said = await python(runtime, scripted_model, "print(open('/' + 'tmp/../tmp/.guard-probe', 'w').name)")
    assert REFUSED not in said  # the temp folder is writable, as for commands
    key = "import os\nopen(os.path.expanduser('~/.ssh/id_test')).read()"
    said = await python(runtime, scripted_model, key)
    assert REFUSED in said and "holds credentials" in said and "PRIVATE KEY" not in said
    said = await python(runtime, scripted_model, "open('jupyter-agent.json', 'w').write('{}')")
    assert REFUSED in said and "is protected" in said and not (project / "jupyter-agent.json").exists()
    said = await python(runtime, scripted_model, "import ctypes\nctypes.CDLL(None).getpid()")
    assert REFUSED in said and "ctypes" in said
    said = await python(runtime, scripted_model, "import ctypes\nctypes.pythonapi.Py_GetVersion()")
    assert REFUSED in said  # ctypes loaded long ago: each call is refused
    said = await python(runtime, scripted_model, "import _xxsubinterpreters as s\ns.create()")
    assert "interpreter creation failed" in said  # refused by the hook; CPython words it
    said = await python(runtime, scripted_model, "import numpy\nprint(numpy.arange(3).sum())")
    assert said.startswith("3")  # a library's own native code is not the agent's


async def test_the_rules_decide_outside_writes(
    project: Path, shell: Any, scripted_model: Any, outside: Path
) -> None:
    allow = {"external_directory": {f"{outside}/*": "allow"}}
    runtime = kernel_runtime(project, shell, scripted_model, permission=allow)
    said = await python(runtime, scripted_model, f"open({str(outside / 'a.txt')!r}, 'w').write('a')")
    assert REFUSED not in said and (outside / "a.txt").read_text() == "a"
    deny = {"external_directory": {f"{outside}/*": "deny"}}
    runtime = kernel_runtime(project, shell, scripted_model, permission=deny)
    said = await python(runtime, scripted_model, f"import os\nos.remove({str(outside / 'a.txt')!r})")
    assert REFUSED in said and 'the "external_directory" rule denies it' in said
    assert (outside / "a.txt").exists()


async def test_the_users_cells_and_threads_it_left_alone(
    project: Path, shell: Any, scripted_model: Any, outside: Path
) -> None:
    runtime = kernel_runtime(project, shell, scripted_model)
    code = (
        "import threading, time\n"
        "late = []\n"
        f"def write():\n    time.sleep(0.3)\n    try:\n        open({str(outside / 't.txt')!r}, 'w')\n"
        "    except OSError as exc:\n        late.append(str(exc))\n"
        "threading.Thread(target=write).start()\n"
    )
    await python(runtime, scripted_model, code)
    deadline = time.monotonic() + 10
    while not shell.user_ns["late"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "Refused" in shell.user_ns["late"][0] and not (outside / "t.txt").exists()
    # the user's own cell, in the same shell, right after: not guarded
    assert shell.run_cell(f"open({str(outside / 'u.txt')!r}, 'w').write('u')").success
    assert (outside / "u.txt").read_text() == "u"


async def test_an_administrator_can_require_a_contained_kernel(
    project: Path, shell: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"require_contained_kernel": True}))
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(admin))
    runtime = kernel_runtime(project, shell, scripted_model)
    for tool, args in (("python", {"code": "x = 1"}), ("bash", {"command": "echo hi"})):
        part = await run_tool(runtime, scripted_model, tool, **args)
        assert part.state.status == "error", part.state
        assert "require a contained kernel" in part.state.error and "Change Kernel" in part.state.error
        assert str(admin) in part.state.error
    notebook = LiveNotebook()
    edit = {"action": "insert", "source": "x = 2", "run": True}
    scripted_model.queue(Reply(tool_calls=[ToolCall("notebook_edit", json.dumps(edit))]), Reply(text="ok"))
    sid = await runtime.prompt("add it", handle=RunHandle(bridge=notebook))
    part = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert part.state.status == "error" and "require a contained kernel" in part.state.error
    assert notebook.ran == [] and "x" not in shell.user_ns
    # outside a kernel (jupyter-agent run) bash is sandboxed as always: not refused
    config = load_config(project, {"model": scripted_model.model, "api_base": scripted_model.base_url})
    cli = build_runtime(
        config=config,
        store=SqliteStore.for_directory(project),
        project_root=project,
        working_dir=project,
        client=scripted_model,
    )
    cli.generate_titles = False
    assert (await run_tool(cli, scripted_model, "bash", command="echo hi")).state.status == "completed"
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(tmp_path / "user.json"))
    (tmp_path / "user.json").write_text("{}")
    (project / "jupyter-agent.json").write_text(json.dumps({"require_contained_kernel": False}))
    with pytest.raises(Exception, match="only the administrator's file"):
        load_config(project)


async def test_the_python_rule_per_kind_of_kernel(
    project: Path, shell: Any, scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = {"kernels": {"ordinary": {"permission": {"python": "deny"}}}}
    for kind, status in (("ordinary", "error"), ("contained", "completed")):
        runtime = kernel_runtime(project, shell, scripted_model, kind, **rules)
        part = await run_tool(runtime, scripted_model, "python", code="1 + 1")
        assert part.state.status == status, (kind, part.state)
    # the administrator's rules per kind are a floor, as any of theirs
    admin = tmp_path / "admin.json"
    admin.write_text(json.dumps({"kernels": {"ordinary": {"permission": {"python": "deny"}}}}))
    monkeypatch.setenv("JUPYTER_AGENT_SYSTEM_CONFIG", str(admin))
    loose = {"permission": {"python": "allow"}, "kernels": {"ordinary": {"permission": {"python": "allow"}}}}
    runtime = kernel_runtime(project, shell, scripted_model, "ordinary", **loose)
    part = await run_tool(runtime, scripted_model, "python", code="1 + 1")
    assert part.state.status == "error" and "administrator" in part.state.error


# ---------------------------------------------------------------- what it does not stop


async def test_what_a_determined_program_can_still_do(
    project: Path, shell: Any, scripted_model: Any, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each item docs/security.md lists under the guard: true today, so the page stays true."""
    runtime = kernel_runtime(project, shell, scripted_model)
    # a path relative to a folder opened earlier: os.open's audit event does not carry dir_fd
    code = (
        f"import os\nfd = os.open({str(outside)!r}, os.O_RDONLY)\n"
        "os.close(os.open('dirfd.txt', os.O_WRONLY | os.O_CREAT, dir_fd=fd))"
    )
    assert REFUSED not in await python(runtime, scripted_model, code)
    assert (outside / "dirfd.txt").exists()
    # code it leaves behind runs later, in the user's cell, unguarded
    later = str(outside / "later.txt")
    code = f"get_ipython().events.register('post_run_cell', lambda r: open({later!r}, 'w'))"
    await python(runtime, scripted_model, code)
    assert not (outside / "later.txt").exists()
    shell.run_cell("1")
    assert (outside / "later.txt").exists()
    # native code that opens files itself, and the network: not watched
    attach = f"ATTACH DATABASE '{outside / 'native.db'}' AS x"
    code = (
        "import sqlite3\ndb = sqlite3.connect(':memory:')\n"
        f"db.execute({attach!r})\ndb.execute('CREATE TABLE x.t (a)')"
    )
    assert REFUSED not in await python(runtime, scripted_model, code)
    assert (outside / "native.db").exists()
    with socket.create_server(("127.0.0.1", 0)) as listening:
        port = listening.getsockname()[1]
        code = f"import socket\nsocket.create_connection(('127.0.0.1', {port})).close()\nprint('connected')"
        assert (await python(runtime, scripted_model, code)).startswith("connected")
    # jupyter-agent's own functions are Python: replacing them turns the guard off
    monkeypatch.setattr(python_guard, "run_guarded", python_guard.run_guarded)  # restored afterwards
    code = (
        "import jupyter_agent.tools.python as p\n"
        "async def bare(policy, body):\n    return await body()\n"
        "p.python_guard.run_guarded = bare"
    )
    await python(runtime, scripted_model, code)
    said = await python(runtime, scripted_model, f"open({str(outside / 'off.txt')!r}, 'w').write('x')")
    assert REFUSED not in said and (outside / "off.txt").exists()


def test_the_hook_cannot_be_removed() -> None:
    """No API removes an audit hook; clearing them is only possible at interpreter exit."""
    import sys

    assert not hasattr(sys, "removeaudithook") and not hasattr(sys, "clearaudithooks")
