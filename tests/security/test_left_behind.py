"""Issue 37.3: what a command leaves behind cannot aim the sandbox, run later outside it, or
make the agent's own clean-up do harm.

The reproductions on main: a ``bwrap`` a command wrote into a project folder on PATH ran the
next command unconfined; the move-aside followed a ``.git`` symlink into another repository
(renaming its ``config``, ``hooks`` and ``info``) and a ``~/.local`` symlink into the folder
it pointed to; an ``ipykernel_launcher.py`` in the notebook's folder ran at the next kernel
start; with the home folder as the project, ``~/bin/git`` and ``~/.bash_aliases`` were
writable; commands inherited ``JUPYTER_TOKEN``, which opens the Jupyter server.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from hostile import computed, run_bash

from jupyter_agent.tools import sandbox

pytestmark = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)
OPEN = {"external_directory": "allow", "bash": "allow"}
"""The rules let everything through: what holds here is the sandbox."""


def sh(command: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """The user's own shell, outside any sandbox."""
    prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
    return os.popen(f"cd {shlex.quote(str(cwd))} && {prefix} sh -c {shlex.quote(command)} 2>&1").read()


async def test_a_bwrap_on_path_is_never_used(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    marker = outside / "fake-bwrap-ran"
    victim = outside / "victim.txt"
    victim.write_text("keep me")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")  # direnv's PATH_add bin
    fake = f'#!/bin/sh\\ntouch {marker}\\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\\n'
    runtime = make_runtime(permission=OPEN)
    first = await run_bash(
        runtime, scripted_model, f"mkdir -p bin && printf '{fake}' > bin/bwrap && chmod +x bin/bwrap"
    )
    assert first.state.status == "completed", first.state
    assert (tmp_path / "bin" / "bwrap").exists()
    part = await run_bash(runtime, scripted_model, f"echo pwned > {computed(victim)}; echo ran")
    assert "ran" in part.state.output and "Read-only file system" in part.state.output, part.state
    assert victim.read_text() == "keep me" and not marker.exists()


async def test_a_bwrap_where_commands_write_is_refused(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    real = sandbox.bwrap_binary({})
    assert real is not None
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bwrap").symlink_to(real)
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", str(tmp_path / "bin" / "bwrap"))
    part = await run_bash(make_runtime(), scripted_model, "echo ran")
    assert part.state.status == "error" and "commands may write" in part.state.error, part.state
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", "bwrap")
    assert "must be an absolute path" in str(sandbox.start_problem(sandbox.SandboxPolicy()))


async def test_the_sweep_never_follows_a_planted_git_link(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    other = outside / "other"
    other.mkdir()
    sh("git init -q . && git config user.name keep", other)
    before = sorted(p.name for p in (other / ".git").iterdir())
    config = (other / ".git" / "config").read_text()
    part = await run_bash(
        make_runtime(permission=OPEN), scripted_model, f"ln -s {other / '.git'} .git; echo made"
    )
    assert "made" in part.state.output and "moved to .git.blocked" in part.state.output, part.state
    assert sorted(p.name for p in (other / ".git").iterdir()) == before
    assert (other / ".git" / "config").read_text() == config
    assert (tmp_path / ".git.blocked").is_symlink() and not os.path.lexists(tmp_path / ".git")


async def test_the_sweep_never_follows_a_planted_home_link(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    """The home folder as the project: ``~/.local`` → a folder elsewhere (as root, ``/usr``)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    target = outside / "usr"
    for name in ("bin", "share/jupyter"):
        (target / name).mkdir(parents=True)
        (target / name / "keep").write_text("keep")
    part = await run_bash(
        make_runtime(permission=OPEN), scripted_model, f"ln -s {target} ~/.local; echo made"
    )
    assert "made" in part.state.output, part.state
    assert (target / "bin" / "keep").exists() and (target / "share" / "jupyter" / "keep").exists()
    assert sorted(p.name for p in target.iterdir()) == ["bin", "share"]
    assert not os.path.lexists(tmp_path / ".local")  # the link itself went aside


async def test_code_a_kernel_or_shell_start_loads_cannot_be_planted(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    """The notebook's folder is the home folder: a kernel started there imports
    ``ipykernel_launcher`` from it first; a login shell puts ``~/bin`` on PATH and
    Ubuntu's ``~/.bashrc`` sources ``~/.bash_aliases``."""
    marker = outside / "PWNED"
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".bashrc").write_text(
        "if [ -f ~/.bash_aliases ]; then\n    . ~/.bash_aliases\nfi\n. ~/.config/extra.sh\n"
    )
    (tmp_path / "IPython").mkdir()
    (tmp_path / "sitecustomize.py").write_text("# mine\n")
    plant = f"import pathlib; pathlib.Path({str(marker)!r}).touch()"
    command = (
        f"echo {shlex.quote(plant)} > ipykernel_launcher.py; echo {shlex.quote(plant)} >> sitecustomize.py; "
        f"echo {shlex.quote(plant)} > IPython/__init__.py; "
        f"mkdir -p ~/bin && printf '#!/bin/sh\\ntouch {marker}\\n' > ~/bin/git && chmod +x ~/bin/git; "
        f"echo 'touch {marker}' > ~/.bash_aliases; "
        f"mkdir -p ~/.config && echo 'touch {marker}' > ~/.config/extra.sh; echo done"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    assert "done" in part.state.output, part.state
    assert (tmp_path / "sitecustomize.py").read_text() == "# mine\n"
    assert list((tmp_path / "IPython").iterdir()) == []
    for made in ("ipykernel_launcher.py", "bin", ".bash_aliases", ".config/extra.sh"):
        assert not os.path.lexists(tmp_path / made), made
    # the user's next kernel start and login shell, outside the sandbox
    python = shlex.quote(os.sys.executable)
    sh(f"{python} -m ipykernel_launcher --help-all >/dev/null", tmp_path, {"HOME": str(tmp_path)})
    sh("PATH=$HOME/bin:$PATH; . ~/.bashrc; git --version", tmp_path, {"HOME": str(tmp_path)})
    assert not marker.exists()


@pytest.mark.parametrize("enabled", [True, False])
async def test_commands_get_no_server_token(
    make_runtime: Any, scripted_model: Any, monkeypatch: Any, enabled: bool
) -> None:
    """A server started with ``JUPYTER_TOKEN`` hands it to its kernels: with it a command
    could start a kernel outside the sandbox through the server's REST API."""
    tokens = ("JUPYTER_TOKEN", "JUPYTERHUB_API_TOKEN", "JPY_API_TOKEN", "JUPYTER_GATEWAY_AUTH_TOKEN")
    for name in tokens:
        monkeypatch.setenv(name, f"secret-{name.lower()}")
    monkeypatch.setenv("JUPYTERHUB_API_URL", "http://127.0.0.1:8081/hub/api")
    command = "; ".join(f'echo "{n}=${{{n}:-unset}}"' for n in tokens) + "; env | grep -ic secret- || true"
    part = await run_bash(make_runtime(sandbox={"enabled": enabled}), scripted_model, command)
    lines = part.state.output.split()
    assert [f"{n}=unset" for n in tokens] == lines[: len(tokens)] and lines[len(tokens)] == "0", part.state
