"""Which commands a program runs in turn: wrappers, shells, shell text in options and
variables, git's and ssh's ways of running commands (the tables docs/security.md lists).

``runs(cmd)`` only reads the words of one simple command and says what else it runs:
another command (a wrapper's), shell text (``bash -c``, ``ssh host cmd``, ``GIT_PAGER``),
or a problem (what cannot be known before it runs). ``bash_parse`` records and parses them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from jupyter_agent.tools.bash_words import SimpleCommand, Word


def names(text: str) -> frozenset[str]:
    """Program names written as one space-separated string."""
    return frozenset(text.split())


WRAPPERS = names(
    "env command builtin exec nohup time nice ionice timeout stdbuf sudo doas xargs setsid "
    "chrt taskset unbuffer strace ltrace flock caffeinate busybox parallel then do else coproc "
    "unshare chroot nsenter runuser setpriv firejail systemd-run dbus-run-session xvfb-run "
    "sshpass proxychains proxychains4 torsocks fakeroot fakechroot pkexec chpst cgexec numactl "
    "prlimit catchsegv valgrind ssh-agent chronic ifne entr rlwrap nocache eatmydata watch sg"
)
"""Commands that run the command given in their arguments (docs/security.md lists them)."""
SHELLS = names("sh bash zsh dash ksh mksh ash fish su rbash")
STRING_RUNNERS = frozenset({"eval"})
"""Commands that join their arguments and run them as shell text."""
TEXT_WRAPPERS = names("watch parallel sg")
"""Wrappers whose arguments are also shell text (``watch 'rm …'``, ``parallel 'rm {}' ::: x``)."""
DASH_C = names("script runuser flock")
"""Wrappers whose ``-c``/``--command`` value is shell text."""
RUN_SUBCOMMANDS = {
    "uv": "run", "poetry": "run", "pipenv": "run", "conda": "run", "mamba": "run", "pixi": "run",
    "hatch": "run", "pdm": "run", "rye": "run", "npm": "exec", "pnpm": "exec", "yarn": "exec",
}  # fmt: skip
"""Tools whose subcommand runs a command: ``uv run rm …``."""
COMMAND_OPTIONS = {
    "tar": ("--checkpoint-action", "--to-command", "--use-compress-program", "-I", "--info-script",
            "--new-volume-script", "-F", "--rsh-command", "--rmt-command"),
    "rsync": ("-e", "--rsh", "--rsync-path"),
    "zip": ("-TT", "--unzip-command"),
    "rg": ("--pre",),
    "sort": ("--compress-program",),
    "scp": ("-S",),
    "sftp": ("-S",),
    "less": ("--lesskey-src",),
}  # fmt: skip
"""Options whose value a program runs as a command (``tar --checkpoint-action=exec=…``)."""
COMMAND_VARS = names(
    "GIT_SSH_COMMAND GIT_SSH GIT_PAGER PAGER MANPAGER SYSTEMD_PAGER GIT_EDITOR EDITOR VISUAL "
    "GIT_SEQUENCE_EDITOR GIT_EXTERNAL_DIFF GIT_ASKPASS SSH_ASKPASS GIT_PROXY_COMMAND "
    "PROMPT_COMMAND PS0 PS1 PS2 PS4 LESSOPEN LESSCLOSE RSYNC_RSH BROWSER"
)
"""Variables whose value a program runs as a command: parsed like ``bash -c``."""
CODE_VARS = names(
    "LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV SHELLOPTS BASHOPTS GIT_DIR GIT_EXEC_PATH "
    "GIT_TEMPLATE_DIR GIT_ALLOW_PROTOCOL GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM "
    "GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT TAR_OPTIONS PYTHONSTARTUP PERL5OPT RUBYOPT NODE_OPTIONS"
)
"""Variables that make a program load code the rules cannot see: asked."""


@dataclass(frozen=True)
class Run:
    """One thing a command runs in turn: a command (``words``), shell text, or a problem."""

    words: tuple[Word, ...] | None = None
    text: Word | None = None
    problem: str | None = None
    here: bool = False
    """In the command's own scope (a wrapper's command, ``eval``, ``alias``), else a new shell's."""


def _text(word: Word, here: bool = False) -> Run:
    return Run(text=word, here=here)


def runs(cmd: SimpleCommand) -> list[Run]:
    """What ``cmd`` runs besides itself, by what its program is."""
    base = cmd.base
    args = cmd.words[1:]
    found: list[Run] = []
    for word in args:  # env GIT_PAGER=…, export PAGER, read EDITOR, printf -v PS4 …
        if word.value is not None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(=.*)?", word.value, re.S):
            name, eq, value = word.value.partition("=")
            found += variable(name, Word(value, word.raw) if eq else None)
    if base in RUN_SUBCOMMANDS:
        values = [w.value for w in args]
        if RUN_SUBCOMMANDS[base] in values:
            args = args[values.index(RUN_SUBCOMMANDS[base]) + 1 :]
            base = "env"  # what follows is a command, as after env
        elif base == "npm" and values[:1] == ["x"]:
            args, base = args[1:], "env"
    if base in ("npx", "pnpx", "bunx"):
        base = "env"
    for word in _option_values(args, COMMAND_OPTIONS.get(base, ())):
        command = word.value
        if base == "tar" and command is not None and command.startswith("exec="):
            command = command.removeprefix("exec=")  # --checkpoint-action=exec=COMMAND
        found.append(_text(Word(command, word.raw)))
    found += _by_program(base, args)
    return found


def _by_program(base: str, args: list[Word]) -> list[Run]:
    if base in WRAPPERS:
        return _wrapper(base, args)
    if base in ("script", *SHELLS):
        script = _option_value(args, ("-c", "--command"), short_group="c")
        if script is not None:
            return [_text(script)]
        if base == "script":
            return []
        if not any(w.value is None or not w.value.startswith("-") for w in args):
            return [Run(problem=f"{base} runs commands read from its input, which cannot be checked")]
        return _script_file(base, args)
    if base in ("ssh", "autossh", "scp", "sftp"):
        return _ssh(base, args)
    if base in ("fd", "fdfind"):
        for i, word in enumerate(args):
            if word.value in ("-x", "--exec", "-X", "--exec-batch") and args[i + 1 :]:
                return [Run(words=tuple(args[i + 1 :]), here=True)]
        return []
    if base in ("source", "."):
        return _script_file(base, args)
    if base in ("mapfile", "readarray"):
        callback = _option_value(args, ("-C",))
        return [_text(callback)] if callback is not None else []
    if base in STRING_RUNNERS or base in ("alias", "trap"):
        return _string_runner(base, args)
    if base == "find":
        return _find_exec(args)
    if base == "git":
        return _git(args)
    return []


def _wrapper(base: str, args: list[Word]) -> list[Run]:
    """Every argument tail may be the command (``timeout 5 rm …``: ``5 rm …`` and ``rm …``)."""
    found: list[Run] = []
    for i, word in enumerate(args):
        if word.value is not None and not word.value.startswith("-") and "=" not in word.value:
            found.append(Run(words=tuple(args[i:]), here=True))
            if base in TEXT_WRAPPERS:
                found.append(_text(_joined(args[i:])))
    split = _option_value(args, ("-S", "--split-string")) if base == "env" else None
    if split is not None:
        found.append(_text(split))
    script = _option_value(args, ("-c", "--command"), short_group="c") if base in DASH_C else None
    if script is not None:
        found.append(_text(script))
    return found


def _string_runner(base: str, args: list[Word]) -> list[Run]:
    texts = [w for w in args if w.value is None or not w.value.startswith("-")]
    if base == "alias":
        return [
            _text(Word(w.value.split("=", 1)[1], w.raw) if w.value and "=" in w.value else w, here=True)
            for w in texts
        ]
    if base == "trap":
        texts = texts[:1]
    return [_text(_joined(texts), here=base == "eval")] if texts else []


def variable(name: str, value: Word | None) -> list[Run]:
    """A variable set (``value``) or named (``export X``, ``read X``: None) in the line."""
    if name in COMMAND_VARS and value is not None:
        return [_text(value)]
    if name in COMMAND_VARS or name in CODE_VARS or name.startswith("GIT_CONFIG_"):
        return [Run(problem=f"{name} makes programs run code the rules cannot see")]
    return []


def _joined(words: list[Word]) -> Word:
    """Words a program joins with spaces and runs as shell text (None if any is computed)."""
    joined = None if any(w.value is None for w in words) else " ".join(w.text for w in words)
    return Word(joined, " ".join(w.raw for w in words))


def _option_value(args: list[Word], names: tuple[str, ...], short_group: str = "") -> Word | None:
    """The word after ``-c`` (or ``-lc``, ``--command``, ``-S`` …), or None."""
    for i, word in enumerate(args[:-1]):
        v = word.value or ""
        if v in names or (short_group and re.fullmatch(rf"-[A-Za-z]*{short_group}[A-Za-z]*", v)):
            return args[i + 1]
        for name in names:
            if name.startswith("--") and v.startswith(name + "="):
                return Word(v[len(name) + 1 :], word.raw)
    return None


def _option_values(args: list[Word], names: tuple[str, ...]) -> list[Word]:
    """Every value of the options ``names``: ``-e CMD``, ``--rsh=CMD``, ``-ICMD``."""
    found: list[Word] = []
    for i, word in enumerate(args):
        v = word.value
        if v is None:
            continue
        for name in names:
            if v == name and i + 1 < len(args):
                found.append(args[i + 1])
            elif name.startswith("--") and v.startswith(name + "="):
                found.append(Word(v[len(name) + 1 :], word.raw))
            elif not name.startswith("--") and len(name) == 2 and v.startswith(name) and len(v) > 2:
                found.append(Word(v[2:], word.raw))
    return found


def _script_file(base: str, args: list[Word]) -> list[Run]:
    """``bash <(echo …)``, ``source /dev/stdin <<< …``: the script is data made on the spot."""
    script = next((w for w in args if w.value is None or not w.value.startswith("-")), None)
    if script is not None and (script.value is None or script.value.startswith(("/dev/", "/proc/"))):
        return [Run(problem=f"{base} runs commands from {script.raw!r}, which cannot be checked")]
    return []


def _find_exec(args: list[Word]) -> list[Run]:
    found: list[Run] = []
    i = 0
    while i < len(args):
        if args[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].value not in (";", "+"):
                j += 1
            if j > i + 1:
                found.append(Run(words=tuple(args[i + 1 : j])))
            i = j
        i += 1
    return found


SSH_VALUE_OPTIONS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
SSH_COMMAND_KEYS = frozenset({"proxycommand", "localcommand", "remotecommand", "knownhostscommand"})


def _ssh(base: str, args: list[Word]) -> list[Run]:
    """``ssh host cmd`` runs ``cmd`` through a shell (over there, which may be here);
    ``-o ProxyCommand=…`` and friends run here."""
    found: list[Run] = []
    for word in _option_values(args, ("-o",)):
        if word.value is None:
            found.append(Run(problem=f"{base} -o {word.raw} is only known when it runs"))
            continue
        key, _, value = re.sub(r"\s*=\s*|\s+", "=", word.value, count=1).partition("=")
        if key.lower() in SSH_COMMAND_KEYS:
            found.append(_text(Word(value, word.raw)))
    if base not in ("ssh", "autossh"):
        return found
    i = 0
    while i < len(args):
        v = args[i].value
        if v is None or not v.startswith("-") or v == "-":
            break
        if v == "--":
            i += 1
            break
        letters = v[1:]
        for j, ch in enumerate(letters):
            if ch in SSH_VALUE_OPTIONS:
                i += 1 if j == len(letters) - 1 else 0  # its value is the next word
                break
        i += 1
    remote = args[i + 1 :]
    if remote:
        found.append(_text(_joined(remote)))
    return found


GIT_COMMAND_KEYS = re.compile(
    r"(alias\..*|.*(pager|editor|command|external|program|helper|fsmonitor|textconv|clean|smudge|process))",
    re.I,
)
"""``git -c key=value`` settings whose value git runs as a shell command."""
GIT_SAFE_KEYS = re.compile(
    r"(user|color|advice|i18n|log|format|pretty|column|status|blame|grep|branch|tag|gc|fetch|"
    r"maintenance|merge|rebase|pull|push|init|safe|http|protocol\.version|commit\.gpgsign|"
    r"core\.(quotepath|autocrlf|safecrlf|abbrev|ignorecase|filemode|eol|whitespace|longpaths|"
    r"symlinks|precomposeunicode|compression|bigfilethreshold|packedgitlimit|pager)|"
    r"diff\.(renames|algorithm|context|noprefix|mnemonicprefix|relative|statgraphwidth|"
    r"colormoved\w*|indentheuristic|suppressblankempty|interhunkcontext))(\..*)?",
    re.I,
)
"""Settings that change no command git runs (``-c color.ui=always``); any other asks."""
GIT_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"})
GIT_COMMAND_OPTIONS = {
    "clone": ("-u", "--upload-pack", "--config"),
    "fetch": ("--upload-pack",),
    "pull": ("--upload-pack",),
    "ls-remote": ("--upload-pack",),
    "archive": ("--exec",),
    "push": ("--receive-pack", "--exec"),
    "send-pack": ("--receive-pack", "--exec"),
    "difftool": ("-x", "--extcmd"),
    "grep": ("-O", "--open-files-in-pager"),
    "rebase": ("-x", "--exec"),
    "filter-branch": ("--setup", "--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
                      "--msg-filter", "--commit-filter", "--tag-name-filter"),
}  # fmt: skip
"""Options of git subcommands whose value is a command git runs."""


def _git(args: list[Word]) -> list[Run]:
    """Commands git itself runs: ``-c alias.x='!cmd'``, ``core.pager``, ``rebase --exec`` …;
    a setting that may change what it runs (``core.hooksPath``) asks."""
    found: list[Run] = []
    values = [w.value for w in args]
    i = 0
    while i < len(args):  # global options, up to the subcommand
        v = values[i]
        if v is None or not v.startswith("-"):
            break
        name, eq, inline = v.partition("=")
        value = Word(inline, args[i].raw) if eq else (args[i + 1] if i + 1 < len(args) else None)
        if name == "-c" and value is not None:
            found += _git_setting(value)
        elif name in ("--exec-path", "--config-env") or (name == "-c" and value is None):
            found.append(Run(problem=f"git {args[i].raw} can change the programs git runs"))
        i += 1 if eq or name not in GIT_GLOBAL_VALUES else 2
    sub = values[i] if i < len(args) else None
    rest = args[i + 1 :]
    if any(v is not None and v.startswith("ext::") for v in values):
        found.append(Run(problem="git's ext:: transport runs a command"))
    for word in _option_values(rest, GIT_COMMAND_OPTIONS.get(sub or "", ())):
        if sub == "clone" and word.value is not None and "=" in word.value and not word.raw.startswith("-u"):
            found += _git_setting(word)  # clone --config key=value
        else:
            found.append(_text(word))
    if sub == "config":  # git config alias.x '!cmd': the setting is checked as with -c
        positional = [w for w in rest if w.value is None or not w.value.startswith("-")]
        if len(positional) >= 2:
            key, value = positional[0], positional[1]
            joined = None if key.value is None or value.value is None else f"{key.value}={value.value}"
            found += _git_setting(Word(joined, f"{key.raw} {value.raw}"))
    rest_values = [w.value for w in rest]
    for first, second in (("bisect", "run"), ("submodule", "foreach")):
        if sub == first and second in rest_values:
            after = rest[rest_values.index(second) + 1 :]
            after = [w for w in after if w.value is None or not w.value.startswith("--")]
            if after:
                found.append(_text(_joined(after)))
    return found


def _git_setting(setting: Word) -> list[Run]:
    """``-c key=value``: a command in the value is checked; an unknown key asks."""
    if setting.value is None:
        return [Run(problem=f"git -c {setting.raw} is only known when it runs")]
    key, _, value = setting.value.partition("=")
    if value.startswith("!") or GIT_COMMAND_KEYS.fullmatch(key):
        return [_text(Word(value.lstrip("!"), setting.raw))]
    if not GIT_SAFE_KEYS.fullmatch(key):
        return [Run(problem=f"git -c {key} may change what git runs")]
    return []
