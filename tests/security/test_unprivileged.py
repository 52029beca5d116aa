"""Issue 37.1, 37.2, 37.4 in a process of the agent's own: as an unprivileged user, and
killed with ``kill -9`` in the middle of a command.

The reproductions on main: as an unprivileged user a command made ``jupyter-agent.json``
and then ran ``chmod a-w .``, so moving it aside failed and the next run had no sandbox;
``git init`` + ``core.fsmonitor`` + ``chmod a-w .git`` ran the planted command at the
user's next ``git status``; a run killed while its command ran left the planted files
where they were. Each test ends with the user's own ``git status`` outside the sandbox.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_as import unprivileged_python
from test_root_inside import PROBE, check_probe

from jupyter_agent.tools import sandbox

AGENT_AS = str(Path(__file__).with_name("agent_as.py"))
LOOSE = json.dumps({"sandbox": {"enabled": False}, "permission": {"bash": "allow"}})
pytestmark = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)


@pytest.fixture
def home() -> Iterator[Path]:
    """A project, a home and a user data folder the unprivileged user owns (pytest's own
    temporary folders are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="ja-nobody-"))
    for name in ("project", "data", "home"):
        (folder / name).mkdir()
    for path in (folder, *folder.iterdir()):
        if os.getuid() == 0:
            os.chown(path, 65534, 65534)
    yield folder
    subprocess.run(["chmod", "-R", "u+rwX", str(folder)], check=False)
    shutil.rmtree(folder, ignore_errors=True)


def env_for(home: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith("JUPYTER_AGENT_")}
    return {**keep, "HOME": str(home / "home"), "JUPYTER_AGENT_DATA_DIR": str(home / "data")}


def planted_git(marker: Path) -> str:
    return f"git init -q . && git config core.fsmonitor 'touch {marker}' && chmod a-w .git; echo made"


def users_git_status(project: Path, argv: list[str], env: dict[str, str]) -> None:
    subprocess.run(
        [*argv, "git", "status", "--short"], cwd=project, env=env, capture_output=True, check=False
    )


def test_as_an_unprivileged_user(home: Path) -> None:
    python = unprivileged_python()
    if python is None:
        pytest.skip("needs root and setpriv, and an interpreter the unprivileged user may run")
    project, marker = home / "project", home / "PWNED"
    commands = [PROBE, planted_git(marker), f"echo '{LOOSE}' > jupyter-agent.json; chmod a-w .; echo made"]
    done = subprocess.run(
        [*python, AGENT_AS, str(project), *commands],
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 4, done.stdout + done.stderr
    check_probe(lines[0]["output"])
    assert "made" in lines[1]["output"] and "made" in lines[2]["output"], lines
    assert lines[3]["sandbox"] is True, lines  # the next session there: the config is not applied
    users_git_status(project, python[:4], env_for(home))
    assert not marker.exists()


def test_a_run_killed_mid_command_leaves_nothing_that_runs_later(tmp_path: Path, untrusting: Path) -> None:
    project, marker = tmp_path / "project", tmp_path / "PWNED"
    project.mkdir()
    ready = tmp_path / "ready"
    command = f"{planted_git(marker)}; echo '{LOOSE}' > jupyter-agent.json; touch {ready}; sleep 60"
    env = {**os.environ, "JUPYTER_AGENT_DATA_DIR": str(untrusting)}
    with open(tmp_path / "out", "w") as out:
        agent = subprocess.Popen(
            [sys.executable, AGENT_AS, str(project), command], env=env, stdout=out, stderr=out
        )
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() and agent.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert ready.exists(), (tmp_path / "out").read_text()
        os.kill(agent.pid, signal.SIGKILL)
        agent.wait()
    finally:
        if agent.poll() is None:
            agent.kill()
    deadline = time.monotonic() + 30  # the guardian moves aside what the command left
    while os.path.lexists(project / ".git" / "config") and time.monotonic() < deadline:
        time.sleep(0.1)
    users_git_status(project, [], env)
    assert not marker.exists()
    from jupyter_agent.config import load_config

    assert load_config(project).sandbox.enabled  # the next session there: not applied
