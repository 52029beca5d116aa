"""Issue 26.3: a deny rule for a program cannot be wrapped.

Each of these deleted the victim on main under ``{"bash": {"rm *": "deny"}}``: the program
ran behind a wrapper the parser did not know, inside a string a wrapper runs, or in a
setting a program reads. Known wrappers are unwrapped and the line is denied; an unknown
program whose arguments name a denied program asks (refused headless); a line that
cannot be parsed and names a denied program is denied. docs/security.md lists them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hostile import refused, run_bash

RULES = {"bash": {"rm *": "deny", "*": "allow"}}
RM = "rm -f victim.txt"

DENIED = {
    # the reproductions
    "unshare": f"unshare {RM}",
    "script -c": f"script -qc '{RM}' /dev/null",
    "chroot": 'chroot / /bin/rm -f "$(pwd)/victim.txt"',
    "nsenter": f"nsenter -t 1 -m {RM}",
    "runuser": f"runuser -u root -- {RM}",
    "tar --checkpoint-action": f"tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='{RM}' victim.txt",
    # the list
    "su -c": f"su root -c '{RM}'",
    "runuser -c": f"runuser -l root -c '{RM}'",
    "setpriv": f"setpriv --reuid=0 {RM}",
    "firejail": f"firejail --quiet {RM}",
    "timeout": f"timeout -s KILL 5 {RM}",
    "stdbuf": f"stdbuf -o0 {RM}",
    "flock": f"flock /tmp/ja.lock {RM}",
    "flock -c": f"flock /tmp/ja.lock -c '{RM}'",
    "watch": f"watch -n 1 '{RM}'",
    "parallel": "parallel 'rm -f {}' ::: victim.txt",
    "parallel argv": "parallel rm -f ::: victim.txt",
    "tar --to-command": f"tar -xf x.tar --to-command='{RM}'",
    "tar -I": f"tar -I '{RM}' -cf x.tar victim.txt",
    "find -exec": "find . -name victim.txt -exec rm -f {} \\;",
    "find -execdir": "find . -name victim.txt -execdir rm -f {} +",
    "find -ok": "find . -name victim.txt -ok rm -f {} \\;",
    "rsync -e": f"rsync -e '{RM}' victim.txt localhost:/tmp/",
    "rsync --rsh": f"rsync --rsh='{RM}' victim.txt localhost:/tmp/",
    "git -c core.fsmonitor": f"git -c core.fsmonitor='{RM}' status",
    "git -c core.sshCommand": f"git -c core.sshCommand='{RM}' fetch origin",
    "git -c alias": f"git -c alias.st='!{RM}' st",
    "git -c diff.textconv": f"git -c diff.x.textconv='{RM}' diff",
    "git difftool -x": f"git difftool -x '{RM}' HEAD",
    "git clone -u": f"git clone -u '{RM}' origin here",
    "git filter-branch": f"git filter-branch --tree-filter '{RM}' HEAD",
    "git grep -O": f"git grep --open-files-in-pager='{RM}' pattern",
    "git config alias": f"git config alias.gone '!{RM}'",
    "git config core.pager": f"git config --local core.pager '{RM}'",
    "ssh host cmd": f"ssh -p 22 localhost {RM}",
    "ssh -o ProxyCommand": f"ssh -o ProxyCommand='{RM}' example",
    "scp -o ProxyCommand": f"scp -oProxyCommand='{RM}' victim.txt example:/tmp/",
    "sshpass": f"sshpass -p secret {RM}",
    "systemd-run": f"systemd-run --user {RM}",
    "xvfb-run": f"xvfb-run {RM}",
    "dbus-run-session": f"dbus-run-session -- {RM}",
    "uv run": f"uv run --no-project {RM}",
    "npx": "npx rm -f victim.txt",
    "fd -x": "fd victim.txt -x rm -f",
    "zip -TT": f"zip -T -TT '{RM}' x.zip victim.txt",
    "rg --pre": f"rg --pre '{RM}' pattern",
    "sort --compress-program": f"sort --compress-program='{RM}' victim.txt",
    # variables whose value a program runs
    "GIT_EXTERNAL_DIFF": f"GIT_EXTERNAL_DIFF='{RM}' git diff",
    "GIT_SSH_COMMAND": f"GIT_SSH_COMMAND='{RM}' git fetch",
    "export GIT_PAGER": f"export GIT_PAGER='{RM}'; git -p log",
    "PAGER alone": f"PAGER='{RM}'; export PAGER; man ls",
    "env EDITOR": f"env EDITOR='{RM}' git commit",
    "PS4": f"PS4='$({RM})' bash -xc true",
    "PROMPT_COMMAND": f"PROMPT_COMMAND='{RM}' bash -i",
    # not parsed: the name is enough
    "brace expansion": "{rm,-f,victim.txt}",
    "command in a variable": "c=rm; $c -f victim.txt",
    "unfinished quote": "rm -f victim.txt 'oops",
}

ASKED = {
    "unknown wrapper": "./mywrap rm -f victim.txt",
    "unknown wrapper, string": f"./mywrap '{RM}'",
    "unknown wrapper, option": f"./mywrap --run='{RM}'",
    "unknown runner of text": "./mywrap -ex 'shell rm -f victim.txt'",
    "socat EXEC:": "socat - EXEC:'rm -f victim.txt'",
    "vim -c": "vim -es -c '!rm -f victim.txt' -c q",
    "git config unknown key": "git config include.path evil.cfg",
    "python code": "python3 -c \"import subprocess; subprocess.run(['rm', '-f', 'victim.txt'])\"",
    "awk system": "awk 'BEGIN { system(\"rm -f victim.txt\") }'",
    "sed e": "sed -n '1e rm -f victim.txt' victim.txt",
    "perl": "perl -e 'system(\"rm -f victim.txt\")'",
    "git -c core.hooksPath": "git -c core.hooksPath=hooks commit -m x",
    "git --exec-path": "git --exec-path=. status",
    "git ext::": "git clone 'ext::sh -c rm% -f% victim.txt' x",
    "LD_PRELOAD": "LD_PRELOAD=./evil.so ls",
    "BASH_ENV": "BASH_ENV=./evil.sh bash -c true",
    "GIT_CONFIG_COUNT": "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=x git log",
    "read a command variable": "read -r GIT_PAGER <<< 'x'; export GIT_PAGER; git -p log",
    # its input is the program: a here-string or here-document
    "make -f stdin": "make -f /dev/stdin <<< $'all:\\n\\trm -f victim.txt'",
    "tclsh heredoc": "tclsh <<'EOF'\nexec rm -f victim.txt\nEOF",
    "ssh stdin": "ssh localhost <<< 'rm -f victim.txt'",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "victim.txt").write_text("keep me")
    wrapper = tmp_path / "mywrap"
    wrapper.write_text('#!/bin/sh\nfor a; do case "$a" in --run=*) eval "${a#--run=}"; exit;; esac; done\n'
                       'case "$1" in *" "*) eval "$1";; *) exec "$@";; esac\n')  # fmt: skip
    wrapper.chmod(0o755)
    return tmp_path


@pytest.mark.parametrize("command", list(DENIED.values()), ids=list(DENIED))
async def test_wrapped_denied_program_is_denied(
    make_runtime: Any, scripted_model: Any, project: Path, command: str
) -> None:
    part = await run_bash(make_runtime(permission=RULES), scripted_model, command)
    assert "is denied by the configuration" in refused(part)
    assert (project / "victim.txt").exists()


@pytest.mark.parametrize("command", list(ASKED.values()), ids=list(ASKED))
async def test_unknown_runner_of_a_denied_program_asks(
    make_runtime: Any, scripted_model: Any, project: Path, command: str
) -> None:
    part = await run_bash(make_runtime(permission=RULES), scripted_model, command)
    assert "needs approval" in refused(part)
    assert (project / "victim.txt").exists()


@pytest.mark.parametrize(
    "command",
    [
        "echo rm is a command",
        "grep -n rm notes.txt",
        "git commit -m 'rm the old notes' --dry-run",
        "timeout 5 ls",
        "ssh -V",
        "./mywrap ls",
        "python3 -c 'print(1)'",
        "git -c color.ui=always status",
        "tar -cf /dev/null notes.txt",
        "cat > more-notes.txt <<'EOF'\nrm the old notes\nEOF",
    ],
)
async def test_plain_commands_still_run(
    make_runtime: Any, scripted_model: Any, project: Path, command: str
) -> None:
    (project / "notes.txt").write_text("rm\n")
    os.system(f"git init -q {project}")
    part = await run_bash(make_runtime(permission=RULES), scripted_model, command)
    assert part.state.status == "completed", part.state


async def test_allow_lists_still_work_through_wrappers(
    make_runtime: Any, scripted_model: Any, project: Path
) -> None:
    """``"*": "deny"`` with an allowed wrapper and program: the wrapper's own arguments
    (``5``) are not mistaken for a denied program."""
    rules = {"bash": {"*": "deny", "./mywrap *": "allow", "mywrap *": "allow", "ls*": "allow"}}
    part = await run_bash(make_runtime(permission=rules), scripted_model, "./mywrap ls -la")
    assert part.state.status == "completed", part.state
