"""Issue 26.1: bash runs in an OS sandbox, so what a command reaches does not depend on how
its paths are spelled.

Every command here is one a parser cannot judge: the path is computed when it runs
(``"$(printf …)"``), reached through ``cd``, a symlink or ``/proc``. Before the sandbox each
of them wrote outside the project under the default rules (``external_directory`` only
sees paths written out).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostile import computed, run_bash

from jupyter_agent.agent.compose import build_runtime
from jupyter_agent.config import load_config
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools import sandbox

pytestmark = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)


@pytest.mark.parametrize(
    "write",
    [
        "echo pwned > {victim}",
        "echo pwned >> {victim}",
        "echo x > src.txt && cp src.txt {victim}",
        "cd {folder} && echo pwned > victim.txt",
        'cd "$(dirname {victim})" && rm -f victim.txt',
        "rm -f {victim}",
        "mv {victim} gone.txt",
        'python3 -c \'import sys; open(sys.argv[1], "w").write("pwned")\' {victim}',
        "echo pwned > /proc/self/root{victim_raw}",
        "echo pwned > /proc/$PPID/root{victim_raw}",
        "echo pwned > /proc/1/root{victim_raw}",
        "ln -s {folder} link && echo pwned > link/victim.txt",
        "(sleep 0.2; echo pwned > {victim}) &",
    ],
)
async def test_a_computed_path_outside_the_project_is_read_only(
    make_runtime: Any, scripted_model: Any, outside: Path, write: str
) -> None:
    victim = outside / "victim.txt"
    victim.write_text("keep me")
    folder = computed(outside)
    command = write.format(victim=computed(victim), folder=folder, victim_raw=victim)
    # the rules let everything through: what holds here is the OS
    part = await run_bash(make_runtime(permission={"external_directory": "allow"}), scripted_model, command)
    assert part.state.status == "completed", part.state
    assert victim.read_text() == "keep me"
    assert sorted(p.name for p in outside.iterdir()) == ["victim.txt"]


async def test_the_rules_do_not_see_it_the_sandbox_stops_it(
    make_runtime: Any, scripted_model: Any, outside: Path
) -> None:
    victim = outside / "victim.txt"
    victim.write_text("keep me")
    part = await run_bash(make_runtime(), scripted_model, f"echo pwned > {computed(victim)}")
    assert part.state.status == "completed", part.state  # no rule asked: the parser cannot see it
    assert "Read-only file system" in part.state.output and victim.read_text() == "keep me"


async def test_the_project_and_the_temp_folder_stay_writable(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"ja-scratch-{os.getpid()}"
    spelled = computed(scratch)
    command = (
        f"echo made > made.txt && mkdir -p sub && echo deep > sub/x && echo t > {spelled} && cat {spelled}"
    )
    part = await run_bash(make_runtime(), scripted_model, command)
    try:
        assert part.state.status == "completed" and part.state.output.startswith("t"), part.state
        assert (tmp_path / "made.txt").read_text() == "made\n" and scratch.read_text() == "t\n"
    finally:
        scratch.unlink(missing_ok=True)


async def test_sandbox_writable_adds_a_folder(make_runtime: Any, scripted_model: Any, outside: Path) -> None:
    runtime = make_runtime(sandbox={"writable": [str(outside)]})
    part = await run_bash(runtime, scripted_model, f"echo cached > {computed(outside / 'cache.txt')}")
    assert part.state.status == "completed", part.state
    assert (outside / "cache.txt").read_text() == "cached\n"


async def test_protected_paths_are_read_only_inside(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """The project's config, git's config and hooks, the session store: read-only for
    commands however they are named; a config a command creates is moved aside."""
    os.system(f"git init -q {tmp_path}")
    runtime = make_runtime()
    (tmp_path / "jupyter-agent.json").write_text("{}")
    git_config = (tmp_path / ".git" / "config").read_text()
    command = (
        'echo \'{"permission": {"bash": "allow"}}\' > "$(printf jupyter-agent.js%s on)"; '
        "git config core.fsmonitor 'touch PWNED'; "
        "printf '[core]\\nfsmonitor = touch PWNED\\n' >> .git/config; "
        "printf '#!/bin/sh\\ntouch PWNED\\n' > .git/hooks/post-checkout; "
        "echo x > .git/info/attributes; echo /tmp/evil > .git/commondir; "
        "mv .git .git-moved; rm -rf .jupyter-agent; "
        "mkdir -p sub && echo '{}' > sub/jupyter-agent.json; git status --short > /dev/null; ls"
    )
    part = await run_bash(runtime, scripted_model, command)
    assert part.state.status == "completed", part.state
    assert (tmp_path / "jupyter-agent.json").read_text() == "{}"
    assert (tmp_path / ".git" / "config").read_text() == git_config
    assert not (tmp_path / ".git" / "hooks" / "post-checkout").exists()
    assert not (tmp_path / ".git" / "info" / "attributes").exists()
    assert not (tmp_path / ".git" / "commondir").exists()  # git would read config from there
    assert (tmp_path / ".jupyter-agent").is_dir() and not (tmp_path / ".git-moved").exists()
    assert not (tmp_path / "PWNED").exists()
    # sub/jupyter-agent.json is not on the notebook's path: only a config the agent reads counts
    assert (tmp_path / "sub" / "jupyter-agent.json").exists()


async def test_a_config_the_command_creates_is_moved_aside(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """The rules live in the user config; a project file would override them."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "no-global").mkdir()
    (tmp_path / "no-global" / "config.json").write_text('{"permission": {"bash": {"rm *": "deny"}}}')
    make = 'echo \'{"permission": {"bash": "allow"}}\' > "$(printf jupyter-agent.js%s on)"'
    part = await run_bash(make_runtime(), scripted_model, make)
    assert "moved to jupyter-agent.json.blocked" in part.state.output, part.state
    assert not (tmp_path / "jupyter-agent.json").exists()
    again = await run_bash(make_runtime(), scripted_model, "rm -f victim.txt")  # a later run reads the config
    assert again.state.status == "error" and victim.exists()


async def test_credentials_are_hidden(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    """Issue 26.6: ``cat $HOME/.netrc`` (a computed path) read the file and sent it to the model."""
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-CONTENT")
    (home / ".netrc").write_text("machine example.com password NETRC-SECRET")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("AWS-SECRET")
    (home / "extra-secret.txt").write_text("EXTRA-SECRET")
    runtime_dir = outside / "runtime"
    runtime_dir.mkdir()
    (runtime_dir / "kernel-1.json").write_text('{"key": "KERNEL-HMAC-KEY"}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime_dir))
    runtime = make_runtime(sandbox={"deny_read": ["~/extra-secret.txt"]})
    command = (
        'cat "$(printf %s/.net "$HOME")rc" "$(printf %s "$HOME")"/.ssh/* "$(printf %s "$HOME")"/.aws/* '
        f'"$(printf %s "$HOME")"/extra-secret.txt {computed(runtime_dir)}/*; '
        f"echo new > {computed(runtime_dir / 'kernel-2.json')} && echo private-copy; echo done"
    )
    part = await run_bash(runtime, scripted_model, command)
    assert part.state.status == "completed" and "done" in part.state.output, part.state
    sent = str(scripted_model.requests[-1])
    for secret in ("NETRC-SECRET", "PRIVATE-KEY-CONTENT", "AWS-SECRET", "EXTRA-SECRET", "KERNEL-HMAC-KEY"):
        assert secret not in part.state.output and secret not in sent
    # a kernel started by a command may write its own connection file, in a private folder
    assert "private-copy" in part.state.output
    assert [p.name for p in runtime_dir.iterdir()] == ["kernel-1.json"]


async def test_background_jobs_end_with_the_command(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """A job left running could act after the checks that follow the command: it ends with it."""
    part = await run_bash(make_runtime(), scripted_model, "(sleep 1; echo late > late.txt) & echo started")
    assert part.state.status == "completed", part.state
    import asyncio

    await asyncio.sleep(1.5)
    assert not (tmp_path / "late.txt").exists()


async def test_bash_env_from_the_kernel_does_not_run(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """``BASH_ENV`` makes every ``bash -c`` run a file first: code no rule ever sees."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "startup.sh").write_text(f"rm -f {victim}\n")
    monkeypatch.setenv("BASH_ENV", str(tmp_path / "startup.sh"))
    part = await run_bash(make_runtime(permission={"bash": {"rm *": "deny"}}), scripted_model, "true")
    assert part.state.status == "completed", part.state
    assert victim.exists()


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on this machine's loopback that answers ``hello``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"hello\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    stop.set()
    thread.join()
    server.close()


@pytest.mark.parametrize("network", [True, False])
async def test_network_switch(make_runtime: Any, scripted_model: Any, listener: int, network: bool) -> None:
    runtime = make_runtime(sandbox={"network": network})
    connect = f"import socket; print(socket.create_connection(('127.0.0.1', {listener}), 5).recv(9))"
    command = f'python3 -c "{connect}" || echo unreachable'
    part = await run_bash(runtime, scripted_model, command)
    assert part.state.status == "completed", part.state
    assert ("hello" in part.state.output) is network, part.state.output


async def test_a_sandbox_that_cannot_start_is_reported_once(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", str(tmp_path / "no-such-bwrap"))
    runtime = make_runtime()
    notices = runtime.take_notices("ses_1", None) + runtime.take_notices("ses_1", None)
    told = [n for n in notices if "without the OS sandbox" in n]
    assert len(told) == 1 and "no-such-bwrap" in told[0], notices
    assert [n for n in runtime.take_notices("ses_2", None) if "sandbox" in n]  # each session is told
    part = await run_bash(runtime, scripted_model, "echo still runs")
    assert part.state.output.startswith("still runs"), part.state
    quiet = make_runtime(sandbox={"enabled": False})
    assert not [n for n in quiet.take_notices("ses_3", None) if "sandbox" in n]


async def test_code_that_runs_later_outside_is_read_only(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """A project that holds the home folder: shell and IPython start-up files run outside the
    sandbox the next time a shell or kernel starts, so commands may not change them."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".bashrc").write_text("# mine\n")
    (tmp_path / ".ipython" / "profile_default" / "startup").mkdir(parents=True)
    command = (
        'echo \'touch PWNED\' >> "$(printf %s "$HOME")/.bashrc"; '
        "echo 'import os' > \"$HOME/.ipython/profile_default/startup/00-x.py\"; "
        "echo 'touch PWNED' > \"$HOME/.profile\"; "
        "git config --global core.fsmonitor 'touch PWNED'; "
        "mkdir -p ~/.local/bin && printf '#!/bin/sh\\ntouch PWNED\\n' > ~/.local/bin/git; echo done"
    )
    part = await run_bash(make_runtime(permission={"external_directory": "allow"}), scripted_model, command)
    assert part.state.status == "completed" and "done" in part.state.output, part.state
    assert (tmp_path / ".bashrc").read_text() == "# mine\n"
    assert list((tmp_path / ".ipython" / "profile_default" / "startup").iterdir()) == []
    assert not (tmp_path / ".profile").exists() and (tmp_path / ".profile.blocked").exists()
    assert not (tmp_path / ".gitconfig").exists() and not (tmp_path / ".local" / "bin").exists()


async def test_an_older_bubblewrap_still_sandboxes(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, monkeypatch: Any
) -> None:
    """bubblewrap before 0.5 has no ``--perms`` (CentOS Stream 9 ships 0.4): the sandbox
    starts without a shared /dev/shm rather than not at all."""
    real = sandbox.bwrap_binary({})
    old = outside / "bwrap-0.4"
    refuse = 'for a; do [ "$a" = --perms ] && { echo "bwrap: Unknown option --perms" >&2; exit 1; }; done'
    old.write_text(f'#!/bin/sh\n{refuse}\nexec {real} "$@"\n')
    old.chmod(0o755)
    monkeypatch.setenv("JUPYTER_AGENT_BWRAP", str(old))
    victim = outside / "victim.txt"
    victim.write_text("keep me")
    runtime = make_runtime()
    assert not [n for n in runtime.take_notices("ses_1", None) if "sandbox" in n]
    part = await run_bash(runtime, scripted_model, f"echo pwned > {computed(victim)}; echo ran")
    assert "ran" in part.state.output and victim.read_text() == "keep me", part.state


async def test_a_repository_the_command_makes_loses_its_config_and_hooks(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """``git init`` is work; a config with ``core.fsmonitor`` left behind would run the next
    time you use git there, outside the sandbox."""
    command = (
        "git init -q . && git config core.fsmonitor 'touch PWNED' && "
        "git -c user.email=a@b -c user.name=a commit -q --allow-empty -m first && echo made"
    )
    part = await run_bash(make_runtime(), scripted_model, command)
    assert "made" in part.state.output and "moved to config.blocked" in part.state.output, part.state
    assert not (tmp_path / ".git" / "config").exists() and (tmp_path / ".git" / "config.blocked").exists()
    (tmp_path / "PWNED").unlink(missing_ok=True)  # made inside the sandbox, by git during the command
    log = os.popen(f"cd {tmp_path} && git status --short >/dev/null; git log --oneline").read()
    assert "first" in log and not (tmp_path / "PWNED").exists()


async def test_a_config_above_the_project_is_moved_aside(
    scripted_model: Any, tmp_path: Path, monkeypatch: Any
) -> None:
    """The agent reads the nearest ``jupyter-agent.json`` up to ``/``: above a project in the
    temp folder (writable for commands) a config the command made would set the next
    prompt's rules."""
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")
    outer = tmp_path / "outer"
    project = outer / "project"
    project.mkdir(parents=True)
    (tmp_path / "no-global").mkdir()
    (tmp_path / "no-global" / "config.json").write_text('{"permission": {"bash": {"rm *": "deny"}}}')

    def runtime() -> Any:
        config = load_config(
            project, {"model": scripted_model.model, "api_base": scripted_model.base_url},
            global_dir=tmp_path / "no-global",
        )  # fmt: skip
        store = SqliteStore.for_directory(project)
        return build_runtime(
            config=config, store=store, project_root=project, working_dir=project, client=scripted_model
        )

    loose = '{"permission": {"bash": "allow"}}'
    above = f"echo '{loose}' > \"$(printf %s ..)/jupyter-agent.json\""
    part = await run_bash(runtime(), scripted_model, above)
    assert "moved to jupyter-agent.json.blocked" in part.state.output, part.state
    assert not (outer / "jupyter-agent.json").exists()
    (project / "victim.txt").write_text("keep me")
    again = await run_bash(runtime(), scripted_model, "rm -f victim.txt")
    assert again.state.status == "error" and (project / "victim.txt").exists(), again.state


async def test_a_store_kept_elsewhere_is_read_only_for_commands(
    scripted_model: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`store` in the temp folder (which commands may write): the store in use and the folder
    of stores stay read-only for commands, as `.jupyter-agent/` is, however they are spelled."""
    monkeypatch.setenv("JUPYTER_AGENT_API_KEY", "sk-test")
    project = tmp_path / "project"
    project.mkdir()
    shared = tmp_path / "stores"
    config = load_config(
        project,
        {"model": scripted_model.model, "api_base": scripted_model.base_url, "store": str(shared)},
        global_dir=tmp_path / "no-global",
    )
    store = SqliteStore.for_directory(project, config.store)
    runtime = build_runtime(
        config=config, store=store, project_root=project, working_dir=project, client=scripted_model
    )
    folder = store.path.parent
    (shared / "other-notebook-folder").mkdir()
    command = (
        f"echo x > {computed(folder / 'sessions.db')}; touch {computed(folder / 'planted')}; "
        f"rm -rf {computed(shared / 'other-notebook-folder')} {computed(folder)}; "
        f"mv {computed(folder)} {computed(shared / 'moved')}; touch {computed(tmp_path / 'reached')}"
    )
    part = await run_bash(runtime, scripted_model, command)
    assert part.state.status == "completed", part.state
    assert (tmp_path / "reached").exists()  # the temp folder itself is writable: the store is not
    assert not (folder / "planted").exists() and not (shared / "moved").exists()
    assert (shared / "other-notebook-folder").is_dir() and folder.is_dir()
    assert store.get_session(part.session_id).id == part.session_id  # the database is intact
    store.close()
