"""What a parsed shell command means for permissions (SPEC "Permissions", bash).

- ``patterns``: one per simple command, each matched against the ``bash`` rules on its
  own; the strictest action wins.
- ``external_paths``: folders outside the project that file-touching commands and
  redirections name (``external_directory``). Only paths written out in the command are
  seen; one computed when it runs (``$DIR``, ``$(…)``) is not.
- ``write_problem``: why the command is not read-only (the plan agent's ``bash_write``).
  Read-only is an allow-list: every command is a known reader with no writing option,
  nothing is redirected into a file, no variable prefix, no shell string.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from jupyter_agent.tools.bash_parse import (
    RUN_SUBCOMMANDS,
    SHELLS,
    STRING_RUNNERS,
    WRAPPERS,
    ParsedCommand,
    Redirect,
    Scope,
    SimpleCommand,
    parse,
)
from jupyter_agent.tools.bash_programs import names

FILE_COMMANDS = names(
    "cd pushd rm rmdir cp mv mkdir touch chmod chown chgrp ln cat tac tee truncate dd "
    "install rsync head tail less more source . find ls grep egrep fgrep rg sed awk sort "
    "diff wc stat shred unlink split csplit zip unzip tar git"
)
"""Commands whose arguments are paths (checked for leaving the project)."""
FIRST_IS_NOT_A_PATH = {
    "chmod": 1, "chown": 1, "chgrp": 1, "grep": 1, "egrep": 1, "fgrep": 1, "rg": 1, "sed": 1, "awk": 1,
}  # fmt: skip
"""Leading operands that are not paths (a mode, an owner, a pattern or script)."""
HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/", "-")

READERS = names(
    "ls cat tac head tail wc pwd echo printf grep egrep fgrep rg file stat du df tree which "
    "type whoami id date uname printenv cut tr cmp basename dirname realpath readlink nl od "
    "true false test [ column md5sum sha1sum sha256sum cd seq jq diff sort uniq find git : "
    "hostname"
)
WRITING_OPTIONS = {
    "sort": ("-o", "--output", "--compress-program"),
    "file": ("-C", "--compile"),
    "printf": ("-v",),
    "test": ("-v",),
    "[": ("-v",),
    "rg": ("--pre", "--pre-glob"),
    "find": ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"),
    "date": ("-s", "--set"),
    "tree": ("-o", "-R"),  # -R with -H writes 00Tree.html into every folder
    "git": ("--output", "--ext-diff", "-O", "--open-files-in-pager", "-c", "--exec-path", "--upload-pack"),
}
GIT_READERS = names("status diff log show blame ls-files rev-parse grep shortlog describe ls-tree cat-file")


def patterns(parsed: ParsedCommand) -> list[str]:
    """What the ``bash`` rules are matched against: every simple command, several spellings."""
    out: list[str] = []
    for cmd in parsed.commands:
        out.extend(p for p in cmd.patterns() if p not in out)
    return out


def _resolve(text: str, cwd: Path) -> Path:
    path = Path(text).expanduser()
    path = path if path.is_absolute() else cwd / path
    try:
        return path.resolve()
    except OSError:  # /proc/1/root of a process we may not inspect: judged as written
        return Path(os.path.normpath(path))


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a path we may not inspect (/proc/1/root/…)
        return False


def _outside(path: Path, root: Path) -> bool:
    return path != root and root not in path.parents


def _path_args(cmd: SimpleCommand) -> list[str]:
    args: list[str] = []
    skip = FIRST_IS_NOT_A_PATH.get(cmd.base, 0)
    if cmd.base in ("grep", "egrep", "fgrep", "rg", "sed", "awk") and any(
        (w.value or "").startswith(("-e", "-f", "--regexp", "--file", "--expression")) for w in cmd.words[1:]
    ):
        skip = 0
    options_done = False
    for word in cmd.words[1:]:
        value = word.value
        if value is None:
            continue  # computed when it runs: not seen here
        if not options_done and value == "--":
            options_done = True
            continue
        if not options_done and value.startswith("-") and value != "-":
            if "=" in value:
                args.append(value.split("=", 1)[1])
            continue
        if "=" in value and value.split("=", 1)[0].isalpha():  # dd of=/x, key=value
            value = value.split("=", 1)[1]
        if skip:
            skip -= 1
            continue
        args.append(value)
    if cmd.base in ("cd", "pushd") and not args:
        args.append("~")
    return [a for a in args if a and not a.startswith(HARMLESS_TARGETS)]


def external_paths(parsed: ParsedCommand, working_dir: Path, project_root: Path) -> list[Path]:
    """Paths outside the project that the command names (files or folders), in order.

    ``cd`` is followed within its scope; a ``cd`` into a folder that does not exist (yet)
    may fail, so later relative paths are checked from both folders."""
    root = project_root.resolve()
    cwds: dict[Scope, list[Path]] = {(): [working_dir.resolve()]}
    found: list[Path] = []

    def folders(scope: Scope) -> list[Path]:
        for n in range(len(scope), -1, -1):
            if scope[:n] in cwds:
                return cwds[scope[:n]]
        return cwds[()]

    def check(text: str, scope: Scope) -> None:
        for cwd in folders(scope):
            path = _resolve(text, cwd)
            if _outside(path, root) and path not in found:
                found.append(path)

    for event in parsed.events:
        if isinstance(event, Redirect):
            target = event.target.value
            if target is not None and not target.isdigit() and not target.startswith(HARMLESS_TARGETS):
                check(target, event.scope)
            continue
        if event.base not in FILE_COMMANDS:
            continue
        for arg in _path_args(event):
            check(arg, event.scope)
            if event.base in ("cd", "pushd") and arg != "-":
                before = folders(event.scope)
                after = [_resolve(arg, c) for c in before]
                maybe = [] if all(_is_dir(a) for a in after) else before
                cwds[event.scope] = list(dict.fromkeys([*after, *maybe]))
    return found


def external_patterns(paths: list[Path]) -> list[str]:
    """``external_directory`` patterns: the folder of each path, as the file tools ask."""
    out: list[str] = []
    for path in paths:
        folder = path if _is_dir(path) else path.parent
        pattern = str(folder / "*")
        if pattern not in out:
            out.append(pattern)
    return out


def write_problem(parsed: ParsedCommand) -> str | None:
    """Why this command may change something (None: it only reads)."""
    if parsed.problems:
        return parsed.problems[0]
    if parsed.arithmetic:
        return "bash evaluates variables in [[ ]] / (( )) arithmetic, which can run commands"
    for redirect in parsed.redirects:
        target = redirect.target.value
        if redirect.writes and not (target is not None and (target.isdigit() or target in HARMLESS_TARGETS)):
            return f"it writes to {redirect.target.raw}"
    for cmd in parsed.commands:
        problem = _command_writes(cmd)
        if problem is not None:
            return problem
    return None


def _has_option(arg: str, option: str, grouped: bool) -> bool:
    """``-o``, ``-ofile``, ``-ro`` (grouped short options), ``--output``, ``--output=x``, ``--out``."""
    if arg == option or arg.startswith(option + "="):
        return True
    name = arg.split("=", 1)[0]
    if option.startswith("--") and name.startswith("--") and len(name) > 2 and option.startswith(name):
        return True  # GNU and git accept a long option shortened: ``sort --out=x``, ``git grep --open``
    short = len(option) == 2 and option[0] == "-"
    return grouped and short and arg.startswith("-") and not arg.startswith("--") and option[1] in arg[1:]


def _command_writes(cmd: SimpleCommand) -> str | None:
    shown = " ".join(w.raw for w in cmd.words)[:80]
    if cmd.assignments:
        return f"variables set in front of a command can change what it runs: {shown}"
    if cmd.base not in READERS or any(w.value is None for w in cmd.words[:1]):
        return f"{cmd.words[0].raw} is not a read-only command"
    args = [w.value for w in cmd.words[1:]]
    for option in WRITING_OPTIONS.get(cmd.base, ()):
        if any(a is not None and _has_option(a, option, grouped=cmd.base != "find") for a in args):
            return f"{cmd.base} {option} can write or run commands"
    positional = [a for a in args if a is None or not a.startswith("-")]
    if cmd.base == "git":
        sub = next((a for a in args if a is None or not a.startswith("-")), None)
        if sub not in GIT_READERS:
            return f"git {sub or ''} is not a read-only git command".replace("  ", " ")
    if cmd.base in ("uniq", "hostname") and len(positional) > (1 if cmd.base == "uniq" else 0):
        return f"{cmd.base} with these arguments writes"
    return None


INTERPRETERS = names(
    "python python3 perl ruby node nodejs deno bun php lua luajit Rscript R julia awk gawk mawk "
    "nawk sed gsed expect tclsh wish osascript pwsh"
)
"""Programs that run code from their arguments: a rule cannot see what that code runs."""
UNWRAPPED = READERS | FILE_COMMANDS | WRAPPERS | SHELLS | STRING_RUNNERS | frozenset(RUN_SUBCOMMANDS)
UNWRAPPED |= names(
    "eval alias trap mapfile readarray ssh autossh scp sftp script fd fdfind tar rsync zip rm "
    "rmdir mkdir touch cp mv ln kill sleep exit return set shopt local declare export unset read"
)
"""Programs whose arguments are parsed already (wrappers, shells …) or are plain data."""
MAX_TOKENS = 200
TOKEN = re.compile(r"[A-Za-z0-9_./+@%^-]+")
"""Words as a program might split them: ``EXEC:rm -f x`` (socat) names ``rm``."""


def suspects(parsed: ParsedCommand) -> list[tuple[str, str]]:
    """Commands a line may run that the parser cannot pin down, each with why:
    every argument tail of a program it does not know (``mywrapper rm -f x``), the shell
    text in its quoted arguments, and the words of interpreter code (``python -c …``).
    A rule that *denies* one of them makes the line ask (``permit_command``)."""
    found: list[tuple[str, str]] = []
    for cmd in parsed.commands:
        base = cmd.base
        if base and base not in (READERS | FILE_COMMANDS) - INTERPRETERS:
            for text in cmd.stdin:  # ``make -f - <<< …``, ``tclsh <<'EOF'``: input it may run
                why = f"{base} may run its input, and it names"
                found += [(t, f"{why} {t.split()[0]}") for t in token_tails(text)]
        if not base or (base in UNWRAPPED and base not in INTERPRETERS):
            continue
        args = cmd.words[1:]
        if base in INTERPRETERS:
            why = f"{base} runs code the rules cannot see, and it names"
            for word in args:
                if word.value is not None:
                    found += [(t, f"{why} {t.split()[0]}") for t in token_tails(word.value)]
            continue
        why = f"{base} may run a command from its arguments:"
        for i, word in enumerate(args):
            value = word.value
            if value is None:
                continue
            if value.startswith("-"):  # --run='rm -f x': the option's value may be a command too
                value = value.partition("=")[2]
                if not value:
                    continue
            else:
                tail = " ".join(w.text for w in args[i:])
                found.append((tail, f"{why} {value}"))
                if "/" in value:
                    rest = [value.rsplit("/", 1)[-1], *(w.text for w in args[i + 1 :])]
                    found.append((" ".join(rest), f"{why} {value}"))
            if re.search(r"\s|;|&|\|", value):  # a string it may run: its commands, and any word tail
                for inner in parse(value).commands:
                    found += [(p, f"{why} {inner.words[0].text}") for p in inner.patterns()]
                found += [(t, f"{why} {t.split()[0]}") for t in token_tails(value)]
    return found


def token_tails(text: str) -> list[str]:
    """Every tail of the words in ``text``: ``a rm -f x`` → ``a rm -f x``, ``rm -f x``, …
    (matched against rules such as ``"rm *"`` or ``"git push*"``)."""
    tokens = TOKEN.findall(text)[:MAX_TOKENS]
    tails: list[str] = []
    for i, token in enumerate(tokens):
        tails.append(" ".join(tokens[i:]))
        if "/" in token and token.rsplit("/", 1)[-1]:  # `s/beta/gamma/` (a sed script) ends in "/"
            tails.append(" ".join([token.rsplit("/", 1)[-1], *tokens[i + 1 :]]))
    return tails
