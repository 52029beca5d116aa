"""Issue 38.1: a contained kernel, started through its kernelspec by jupyter_client as a
server does, runs everything inside the sandbox: the user's cells, the agent's ``python``
and its ``bash``.

The reproductions on main: the python tool (and any cell) wrote outside the project and
read ``~/.ssh`` that the sandbox hides from ``bash``; no kernelspec ran the kernel itself in
the sandbox. One kernel, without a network (its channels and its model relayed), serves the
module (starting one and importing litellm in it is the slow part); a second, with the
network, is killed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hostile import computed, outside_folder
from kernel_harness import Kernel
from scripted_server import Reply, ScriptedServer, ToolCall

from jupyter_agent.contained import kernelspec
from jupyter_agent.tools import sandbox
from jupyter_agent.tools.protected import jupyter_runtime_dir

pytestmark = [
    pytest.mark.kernel,
    pytest.mark.skipif(
        sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
    ),
]
GIT = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
PROBES = """
import json, os
def probe(name, act):
    try:
        act()
        found[name] = "ok"
    except OSError as exc:
        found[name] = type(exc).__name__
found = {{}}
probe("outside", lambda: open({outside!r} + "/{who}.txt", "w").write("x"))
probe("key", lambda: print(open(os.path.expanduser("~/.ssh/id_test")).read()))
probe("project", lambda: open("{who}.txt", "w").write("ok"))
probe("store", lambda: open(".jupyter-agent/{who}-probe", "w").write("ok"))
probe("git config", lambda: open(".git/config", "a").write("[core]\\n\\tfsmonitor = touch PWNED\\n"))
probe("trust records", lambda: open(os.environ["JUPYTER_AGENT_DATA_DIR"] + "/trust.json", "a"))
print(json.dumps(found))
"""
CONTAINED = {
    "outside": "OSError",
    "key": "FileNotFoundError",
    "project": "ok",
    "store": "ok",
    "git config": "OSError",
    "trust records": "OSError",
}


@dataclass
class Setup:
    kernel: Kernel
    server: ScriptedServer
    project: Path
    outside: Path
    specs: Path
    env: dict[str, str]


def _project(folder: Path) -> Path:
    folder.mkdir()
    subprocess.run([*GIT, "init", "-q", "."], cwd=folder, check=True)
    subprocess.run([*GIT, "commit", "-q", "--allow-empty", "-m", "start"], cwd=folder, check=True)
    (folder / ".jupyter-agent").mkdir()
    return folder


@pytest.fixture(scope="module")
def contained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    """A contained kernel without a network: its channels and its model are relayed."""
    base = tmp_path_factory.mktemp("contained")
    kernelspec.install(prefix=str(base / "prefix"))
    specs = base / "prefix" / "share" / "jupyter" / "kernels"
    project = _project(base / "project")
    config = project / "jupyter-agent.json"  # trusted: the run's folders are (conftest.py)
    config.write_text(json.dumps({"sandbox": {"network": False}}))
    home = base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_test").write_text("PRIVATE KEY\n")
    server = ScriptedServer().start()
    # short: the kernel's unix sockets live there (pytest's folders under xdist are too long)
    runtime = Path(tempfile.mkdtemp(prefix="ja-rt-"))
    admin = Path(tempfile.mkdtemp(prefix="ja-admin-", dir="/var/tmp"))  # an audit trail outside
    (admin / "config.json").write_text(json.dumps({"audit": str(admin / "audit")}))
    env = {
        "JUPYTER_AGENT_SYSTEM_CONFIG": str(admin / "config.json"),
        "HOME": str(home),
        "JUPYTER_RUNTIME_DIR": str(runtime),
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_AGENT_NOTEBOOK": str(project / "analysis.ipynb"),
    }
    with outside_folder() as outside:
        kernel = Kernel(project, env, spec=(kernelspec.DEFAULT_NAME, specs))
        try:
            yield Setup(kernel, server, project, outside, specs, env)
        finally:
            kernel.shutdown()
            server.stop()
            shutil.rmtree(runtime, ignore_errors=True)
            shutil.rmtree(admin, ignore_errors=True)


def test_the_users_cells_are_contained(contained: Setup) -> None:
    kernel = contained.kernel
    said = kernel.execute("from jupyter_agent.tools import kernel_kind\nprint(kernel_kind.contained())")
    assert said.stdout.strip() == "True", said
    with socket.create_server(("127.0.0.1", 0)) as listening:  # another service of this computer
        port = listening.getsockname()[1]
        cell = (
            "import socket\n"
            f"try:\n    socket.create_connection(('127.0.0.1', {port}), timeout=5)\n    print('reached')\n"
            "except OSError as exc:\n    print(type(exc).__name__)"
        )
        assert kernel.execute(cell).stdout.strip() == "ConnectionRefusedError"
    result = kernel.execute(PROBES.format(outside=str(contained.outside), who="cell"))
    assert json.loads(result.stdout.strip().splitlines()[-1]) == CONTAINED, result
    assert not (contained.outside / "cell.txt").exists()
    assert (contained.project / "cell.txt").read_text() == "ok"
    assert (contained.project / ".jupyter-agent" / "cell-probe").read_text() == "ok"
    assert "fsmonitor" not in (contained.project / ".git" / "config").read_text()


def test_the_agent_runs_contained(contained: Setup) -> None:
    kernel, server, outside = contained.kernel, contained.server, contained.outside
    code = PROBES.format(outside=str(outside), who="agent")
    command = f"echo from-bash > bash.txt; touch {computed(outside / 'bash.txt')} 2>&1 | tail -1"
    server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": code}))]),
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": command}))]),
        Reply(text="Probed."),
    )
    assert kernel.execute("%load_ext jupyter_agent").status == "ok"
    result = kernel.execute("%agent probe the sandbox")
    assert result.status == "ok", result.error
    # the answer streams to stdout; the transcript's plain text does not repeat it
    shown = result.stdout + "".join(o["data"].get("text/plain", "") for o in result.outputs)
    assert "Probed." in shown and "· contained ·" in shown, shown
    tools = [m["content"] for m in server.requests[-1]["body"]["messages"] if m["role"] == "tool"]
    assert json.loads(tools[0].strip().splitlines()[-1]) == CONTAINED, tools[0]
    assert "Read-only file system" in tools[1] and "PRIVATE KEY" not in "".join(tools)
    assert (contained.project / "agent.txt").read_text() == "ok"
    assert (contained.project / "bash.txt").read_text() == "from-bash\n"
    assert not (outside / "agent.txt").exists() and not (outside / "bash.txt").exists()
    assert (contained.project / ".jupyter-agent" / "sessions.db").is_file()
    trail = Path(json.loads(Path(contained.env["JUPYTER_AGENT_SYSTEM_CONFIG"]).read_text())["audit"])
    logged = [json.loads(line)["tool"] for f in trail.glob("*.jsonl") for line in f.read_text().splitlines()]
    assert logged == ["python", "bash"]  # the admin's audit folder is written from inside


def test_git_lands_and_git_config_does_not(contained: Setup) -> None:
    kernel, project = contained.kernel, contained.project
    (project / "work.txt").write_text("work\n")
    cell = (
        "import subprocess\n"
        f"git = {GIT!r}\n"
        "def run(*argv):\n    print(subprocess.run(argv, capture_output=True).returncode)\n"
        "run(*git, 'add', 'work.txt')\n"
        "run(*git, 'commit', '-qm', 'in the kernel')\n"
        "run('git', 'config', 'core.fsmonitor', 'touch PWNED')"
    )
    added, committed, configured = kernel.execute(cell).stdout.split()
    assert (added, committed) == ("0", "0") and configured != "0"  # "could not write config file"
    log = subprocess.run(["git", "log", "--format=%s"], cwd=project, capture_output=True, text=True)
    assert log.stdout.split("\n")[0] == "in the kernel"  # refs are the real ones
    deadline = time.monotonic() + 10  # the index copy is synced back within a second or so
    porcelain = ["git", "status", "--porcelain", "work.txt"]
    while time.monotonic() < deadline:
        status = subprocess.run(porcelain, cwd=project, capture_output=True)
        if not status.stdout:
            break
        time.sleep(0.2)
    assert status.stdout == b"", status
    assert not (project / "PWNED").exists()


def test_an_interrupt_reaches_the_cell(contained: Setup) -> None:
    kernel = contained.kernel
    msg_id = kernel.submit("import time\ntime.sleep(60)")
    time.sleep(1.5)
    kernel.interrupt()
    reply = kernel.kc.get_shell_msg(timeout=30)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kernel.kc.get_shell_msg(timeout=30)
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    assert kernel.execute("print('still here')").stdout.strip() == "still here"


def test_a_killed_kernel_leaves_nothing_that_runs_later(contained: Setup, tmp_path: Path) -> None:
    """A contained kernel with the network (the default), killed as a server's "restart now"
    does: its keeper moves aside what it planted and removes its run folder."""
    project = _project(tmp_path / "online")
    kernel = Kernel(project, contained.env, spec=(kernelspec.DEFAULT_NAME, contained.specs))
    try:
        assert kernel.execute("print(6 * 7)").stdout.strip() == "42"
        run = _run_folder(kernel, contained.env)
        assert run.is_dir()
        # a module a later, ordinary kernel started in this folder would import first
        kernel.execute("open('ipykernel_launcher.py', 'w').write('import os')")
        kernel.kill()  # kill -9: nothing of the launcher runs
        deadline = time.monotonic() + 20
        while (run.exists() or (project / "ipykernel_launcher.py").exists()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not run.exists()  # its connection copy and IPython folder: gone with it
        assert not (project / "ipykernel_launcher.py").exists()
        assert (project / "ipykernel_launcher.py.blocked").exists()
    finally:
        kernel.shutdown()


def _run_folder(kernel: Kernel, env: dict[str, str]) -> Path:
    key = hashlib.sha256(str(Path(kernel.km.connection_file).resolve()).encode()).hexdigest()[:10]
    return jupyter_runtime_dir({**os.environ, **env}) / f"ja-{key}"
