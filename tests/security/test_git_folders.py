"""Issue 37.2: git's own folders are read-only to commands, a submodule's and a linked
worktree's too; the work git records (objects, refs, logs, the index, HEAD) still lands.

The reproductions on main: ``.git/modules/<sub>/config`` with ``core.fsmonitor`` and
``.git/worktrees/<wt>/commondir`` pointed at a planted git folder were both writable from
the sandbox, and the user's next ``git status`` (outside it) ran the planted command.
Each test ends with the user's own git commands, outside the sandbox, and checks that
nothing planted ran.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from hostile import run_bash

from jupyter_agent.tools import sandbox

pytestmark = pytest.mark.skipif(
    sandbox.start_problem(sandbox.SandboxPolicy()) is not None, reason="bubblewrap cannot start here"
)
GIT = "git -c user.email=a@b -c user.name=a -c protocol.file.allow=always -c init.defaultBranch=main"
OPEN = {"external_directory": "allow", "bash": "allow"}
"""The rules let everything through: what holds here is the sandbox."""
PLANT = "printf '#!/bin/sh\\ntouch {marker}\\n' > {hook} && chmod +x {hook}"


def sh(command: str, cwd: Path) -> str:
    """The user's own shell, outside any sandbox (its output and errors)."""
    return os.popen(f"cd {shlex.quote(str(cwd))} && ({command}) 2>&1").read()


def repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    sh(f"{GIT} init -q . && echo x > f && git add f && {GIT} commit -qm first", path)
    return path


def the_users_git_runs_nothing_planted(*folders: Path, marker: Path) -> None:
    for folder in folders:
        sh(f"git status --short; {GIT} commit -qam mine --allow-empty; git log -1 --oneline", folder)
    assert not marker.exists(), f"a planted command ran at the user's git ({marker})"


async def test_a_submodules_git_folder_is_read_only(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    marker = outside / "PWNED"  # read-only to commands: only a git outside the sandbox can make it
    repo(outside / "lib-src")
    sh(f"{GIT} submodule -q add {outside / 'lib-src'} lib && {GIT} commit -qm sub", repo(tmp_path))
    module = tmp_path / ".git" / "modules" / "lib"
    config = (module / "config").read_text()
    command = (
        f"printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> .git/modules/lib/config; "
        f"git -C lib config core.fsmonitor 'touch {marker}'; "
        + PLANT.format(marker=marker, hook=".git/modules/lib/hooks/pre-commit")
        + f"; echo '[core] fsmonitor = touch {marker}' > .git/modules/lib/config.worktree"
        + f"; printf 'gitdir: {tmp_path / 'evil'}\\n' > lib/.git; echo done"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    assert "done" in part.state.output, part.state
    assert (module / "config").read_text() == config and not (module / "config.worktree").exists()
    assert not (module / "hooks" / "pre-commit").exists()
    assert (tmp_path / "lib" / ".git").read_text().startswith("gitdir: ../.git/modules/lib")
    the_users_git_runs_nothing_planted(tmp_path, tmp_path / "lib", marker=marker)


async def test_a_worktrees_commondir_cannot_be_redirected(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    marker = outside / "PWNED"  # read-only to commands: only a git outside the sandbox can make it
    sh(f"{GIT} worktree add -q wt", repo(tmp_path))
    admin = tmp_path / ".git" / "worktrees" / "wt"
    before = {name: (admin / name).read_text() for name in ("commondir", "gitdir")}
    evil = tmp_path / "evil"
    command = (
        f"{GIT} init -q evil && git -C evil config core.fsmonitor 'touch {marker}'; "
        f"echo {evil / '.git'} > .git/worktrees/wt/commondir; "
        "echo /nowhere > .git/worktrees/wt/gitdir; "
        f"echo 'gitdir: {evil / '.git'}' > wt/.git; echo done"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    assert "done" in part.state.output, part.state
    assert {name: (admin / name).read_text() for name in before} == before
    assert (tmp_path / "wt" / ".git").read_text() == f"gitdir: {admin}\n"
    the_users_git_runs_nothing_planted(tmp_path / "wt", tmp_path, marker=marker)


async def test_ordinary_git_work_still_lands(make_runtime: Any, scripted_model: Any, tmp_path: Path) -> None:
    repo(tmp_path)
    command = (
        f"echo a > a && git add a && {GIT} commit -qm add-a && git checkout -qb topic && "
        f"echo b > b && git add b && {GIT} commit -qm add-b && git checkout -q main && "
        f"{GIT} merge -q --no-ff -m merged topic && git branch -q old && git tag v1 && "
        f"echo c > c && git add c && {GIT} stash -q && git reset -q --hard HEAD && "
        "git config core.fsmonitor 'touch PWNED'; git log --oneline | wc -l"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    assert part.state.status == "completed" and part.state.output.split()[-1] == "4", part.state
    assert "could not write config file" in part.state.output  # git config is the user's
    log = sh("git log --format=%s main", tmp_path).split()
    assert log[0] == "merged" and {"add-a", "add-b", "first"} <= set(log)
    assert sh("git branch --show-current; git stash list | wc -l; git tag", tmp_path).split() == [
        "main",
        "1",
        "v1",
    ]
    assert sh("git status --porcelain", tmp_path).strip() == ""  # the index came back with the work
    assert "fsmonitor" not in (tmp_path / ".git" / "config").read_text()
    assert not (tmp_path / "PWNED").exists()


async def test_new_git_folders_from_a_command_are_not_kept(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    """``git submodule add`` and ``git worktree add`` make git folders, which commands cannot:
    the result says so, and the user's git is left as it was."""
    marker = outside / "PWNED"  # read-only to commands: only a git outside the sandbox can make it
    repo(outside / "lib-src")
    repo(tmp_path)
    command = (
        f"{GIT} submodule -q add {outside / 'lib-src'} lib; "
        f"git -C lib config core.fsmonitor 'touch {marker}'; "
        f"{GIT} worktree add -q wt2; echo /tmp > .git/commondir; echo done"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    output = part.state.output
    assert "done" in output, part.state
    assert "git made" in output and ".git/modules/lib" in output and ".git/worktrees/wt2" in output
    assert "commondir was made by the command and not kept" in output
    git = tmp_path / ".git"
    assert (
        not (git / "modules").exists()
        and not (git / "worktrees").exists()
        and not (git / "commondir").exists()
    )
    the_users_git_runs_nothing_planted(tmp_path, marker=marker)


async def test_a_command_cannot_plant_a_submodule_that_git_status_enters(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    """``git status`` runs git inside each registered submodule that holds a ``.git``: a
    command must neither register one whose ``.git`` names its own repository, nor give a
    registered one that is not checked out a repository of its own."""
    marker = outside / "PWNED"  # read-only to commands: only a git outside the sandbox can make it
    repo(outside / "lib-src")
    sh(f"{GIT} submodule -q add {outside / 'lib-src'} lib && {GIT} commit -qm sub", repo(tmp_path))
    sh("git submodule deinit -q -f lib", tmp_path)  # registered, not checked out
    evil = f"git init -q {{0}} && git -C {{0}} config core.fsmonitor 'touch {marker}'"
    command = (
        f"{evil.format('evil')} && {GIT} -C evil commit -q --allow-empty -m e && mkdir -p sub && "
        "echo 'gitdir: ../evil/.git' > sub/.git && "
        "git update-index --add --cacheinfo 160000,$(git -C evil rev-parse HEAD),sub; "
        f"{evil.format('lib')}; echo done"
    )
    part = await run_bash(make_runtime(permission=OPEN), scripted_model, command)
    output = part.state.output
    assert "done" in output and "registered sub as a submodule" in output, part.state
    assert "lib/.git/config is protected" in output
    assert "sub" not in sh("git ls-files --stage | grep ^160000", tmp_path)
    the_users_git_runs_nothing_planted(tmp_path, marker=marker)
