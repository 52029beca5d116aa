"""The contained kernel's launcher without starting a kernel: what it reads, plans and leaves.

The kernels themselves are in tests/security/test_contained_kernel.py (slow); here the
parts that decide what that kernel may do, in the fast tier.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from jupyter_agent.cli import main
from jupyter_agent.contained import egress, launch, settings
from jupyter_agent.contained.rundir import OWNER, RunDir
from jupyter_agent.storage import location
from jupyter_agent.tools import kernel_kind, notebook_path
from jupyter_agent.tools.protected import Guard, user_data_dir
from jupyter_agent.tools.sandbox_layout import Layout


def test_the_kernelspec_runs_the_launcher(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["kernel", "install", "--contained", "--prefix", str(tmp_path)]) == 0
    spec = json.loads((tmp_path / "share/jupyter/kernels/python3-contained/kernel.json").read_text())
    assert spec["display_name"] == "Python 3 (contained)" and spec["interrupt_mode"] == "signal"
    assert spec["argv"][1:] == ["-m", "jupyter_agent.contained", "-f", "{connection_file}"]
    assert "Installed" in capsys.readouterr().out
    assert main(["kernel", "install", "--prefix", str(tmp_path)]) == 2  # --contained is the point
    assert "needs --contained" in capsys.readouterr().err


def test_the_settings_are_kept_until_a_file_changes(tmp_path: Path) -> None:
    env = {**os.environ}
    config = tmp_path / "jupyter-agent.json"
    config.write_text(json.dumps({"sandbox": {"network": False, "writable": ["cache"]}}))
    first = settings.read(tmp_path, env)
    assert first.network is False and first.writable == ("cache",)
    cached = next((user_data_dir(env) / settings.CACHE_DIR).glob("*.json"))
    assert settings.read(tmp_path, env) == first  # from the cache
    config.write_text(json.dumps({"sandbox": {"network": True}}))
    assert settings.read(tmp_path, env).network is True  # the file changed: read again
    cached.write_text("{not json")
    assert settings.read(tmp_path, env).network is True
    config.write_text("{broken")
    with pytest.raises(settings.SettingsProblem, match="invalid JSON"):
        settings.read(tmp_path, env)  # the kernel does not start without knowing its sandbox


def test_the_model_endpoints_a_kernel_without_a_network_reaches() -> None:
    data = {
        "model": "anthropic/claude-sonnet-4-5",
        "models": {"x": {"options": {"base_url": "https://gw.example.org/v1"}}},
        "agent": {"plan": {"model": "openai/gpt-5", "options": {}}},
    }
    assert settings.endpoints(data) == ["gw.example.org:443", "api.anthropic.com:443", "api.openai.com:443"]
    inline = {"model": "openai/x", "completion": {"model": "mistral/codestral-latest"}}
    assert settings.endpoints(inline) == ["api.openai.com:443", "api.mistral.ai:443"]  # inline completion's
    assert settings.endpoints({"api_base": "http://localhost:11434", "model": "openai/x"}) == [
        "localhost:11434"
    ]
    routes, hosts = egress.routes(["localhost:11434", "127.0.0.1:8000", "gw.example.org:443", "10.0.0.5:80"])
    assert [(r.listen, r.port) for r in routes] == [
        ("127.0.0.1", 11434),
        ("127.0.0.1", 8000),
        ("127.0.0.2", 443),
    ]
    assert hosts == ["127.0.0.1 localhost", "127.0.0.2 gw.example.org"]  # a remote address: not reachable


def test_the_layout_keeps_the_store_writable_and_the_records_readable(tmp_path: Path) -> None:
    project, data = tmp_path / "project", tmp_path / "data"
    (project / ".jupyter-agent").mkdir(parents=True)
    (project / "jupyter-agent.json").write_text("{}")
    data.mkdir()
    env = {**os.environ, "JUPYTER_AGENT_DATA_DIR": str(data)}
    bash = Layout.plan(project, project, [], Guard.build(env), env, stage_git=False)
    assert project / ".jupyter-agent" in bash.read_only and data in bash.hidden
    kernel = Layout.plan(
        project,
        project,
        [],
        Guard.build(env),
        env,
        stage_git=False,
        store=project / ".jupyter-agent",
        readable=[data],
    )
    assert project / ".jupyter-agent" not in kernel.read_only and data not in kernel.hidden
    assert data in kernel.read_only and project / "jupyter-agent.json" in kernel.read_only
    elsewhere = Path(tempfile.mkdtemp(dir="/var/tmp"))  # outside the project and the temp folder
    try:
        moved = Layout.plan(project, project, [], Guard.build(env), env, stage_git=False, store=elsewhere)
    finally:
        shutil.rmtree(elsewhere)
    assert elsewhere in moved.exposed  # a store kept outside the project: writable too
    assert moved.args()[-3:] == ["--bind", str(elsewhere), str(elsewhere)]


def test_a_run_folder_of_a_dead_launcher_goes(tmp_path: Path) -> None:
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt")}
    connection = tmp_path / "kernel-1.json"
    connection.write_text(json.dumps({"shell_port": 5, "ip": "127.0.0.1", "key": "k"}))
    stale = tmp_path / "rt" / "ja-0123456789"
    stale.mkdir(parents=True)
    (stale / OWNER).write_text("999999999")  # no such process
    run = RunDir.make(connection, env, ipc=True)
    assert not stale.exists() and run.sockets == str(run.path / "k")
    inner = json.loads(run.connection.read_text())
    assert inner["transport"] == "ipc" and inner["ip"] == run.sockets and run.ports == {"shell_port": 5}
    assert oct(run.path.stat().st_mode & 0o777) == "0o700"
    run.remove()
    assert not run.path.exists()


def test_a_runner_is_named_to_the_kernel_inside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside, the kernel's parent is the sandbox's init: the launcher passes on what it saw
    of its own parent (papermill's command), and drops a session name it only inherited."""
    run = RunDir(tmp_path, tmp_path / "kernel.json", tmp_path / "ipython")
    monkeypatch.setattr(notebook_path, "_parent_has", lambda name, value: True)
    env = launch.kernel_env({**os.environ, notebook_path.SERVER_VARIABLE: "outer.ipynb"}, run)
    assert notebook_path.SERVER_VARIABLE not in env
    assert json.loads(env[notebook_path.RUNNER_VARIABLE])["argv"] == notebook_path.parent_command()[0]  # type: ignore[index]
    nb = tmp_path / "analysis.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": "%agent go"}]}))
    told = json.dumps({"argv": ["papermill", "analysis.ipynb", "out.ipynb"], "cwd": str(tmp_path)})
    monkeypatch.setenv(notebook_path.RUNNER_VARIABLE, told)
    monkeypatch.setattr(kernel_kind, "contained", lambda: True)
    assert notebook_path.runner_notebook(["%agent go"]) == nb
    monkeypatch.setattr(kernel_kind, "contained", lambda: False)  # an ordinary kernel asks /proc
    assert notebook_path.runner_notebook(["%agent go"]) is None


def test_a_store_kept_elsewhere_is_the_kernels(tmp_path: Path) -> None:
    """``store`` (here from the environment) moves the sessions out of the project: the
    launcher makes that folder, and the layout binds it writable, where the kernel looks."""
    base = Path(tempfile.mkdtemp(dir="/var/tmp"))  # outside the project and the temp folder
    try:
        env = {**os.environ, "JUPYTER_AGENT_STORE": str(base)}
        chosen = settings.read(tmp_path, env)
        assert chosen.store == str(base) and settings.read(tmp_path, env) == chosen  # kept too
        folder = launch.store_folder(tmp_path, env, chosen.store)
        assert folder == location.locate(tmp_path, str(base), env).folder and folder.parent == base
        assert folder.is_dir()
        layout = Layout.plan(tmp_path, tmp_path, [], Guard.build(env), env, stage_git=False, store=folder)
        assert folder in layout.exposed
        assert launch.store_folder(tmp_path, {**os.environ}, None) == tmp_path / ".jupyter-agent"
        (base / "blocked").write_text("")  # a file where a folder must be
        with pytest.raises(launch.CannotStart, match="session store"):
            launch.store_folder(tmp_path, env, str(base / "blocked"))
    finally:
        shutil.rmtree(base)


def test_the_admins_audit_trail_reaches_out(tmp_path: Path) -> None:
    """The audit folder is bound writable, syslog's socket is bound in (its /dev has none)."""
    project = tmp_path / "home" / "project"
    project.mkdir(parents=True)
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    layout = Layout.plan(project, project, [], Guard.build(env), env, stage_git=False)
    assert launch.audit_mounts("syslog", layout, project, env) == ["--ro-bind-try", "/dev/log", "/dev/log"]
    assert launch.audit_mounts(None, layout, project, env) == [] and layout.exposed == []
    for holding in (tmp_path, tmp_path / "home", project, "/"):  # it would undo the sandbox
        assert launch.audit_mounts(str(holding), layout, project, env) == [] and layout.exposed == []
    assert launch.audit_mounts(str(tmp_path / "audit"), layout, project, env) == []
    assert layout.exposed == [(tmp_path / "audit").resolve()] and (tmp_path / "audit").is_dir()
