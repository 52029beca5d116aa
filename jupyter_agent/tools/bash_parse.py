"""Parse a shell command the way bash will run it, so permissions see every command in it.

tree-sitter-bash (the grammar OpenCode uses) turns the text into a tree; every simple
command is collected on its own — across ``;``, ``&&``, ``||``, ``|``, newlines,
subshells, ``$( )``, backticks, process substitution and heredocs — with its file
redirections. Commands behind wrappers (``env``, ``command``, ``xargs``, ``sudo``,
``find -exec`` …) and inside shell strings (``bash -c``, ``eval``, ``alias``, ``trap``)
are collected too. What cannot be known before it runs (a syntax error, a command name
held in a variable, a shell reading commands from its input) is a *problem*: the caller
asks instead of guessing. tree-sitter is imported on the first call (``%load_ext`` stays fast).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

MAX_DEPTH = 4
"""Shell strings inside shell strings (``bash -c "eval '…'"``) deeper than this are refused."""


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS = _names(
    "env command builtin exec nohup time nice ionice timeout stdbuf sudo doas xargs setsid "
    "chrt taskset unbuffer strace ltrace flock caffeinate busybox parallel then do else coproc "
    "unshare chroot nsenter runuser setpriv firejail systemd-run dbus-run-session xvfb-run "
    "sshpass proxychains proxychains4 torsocks fakeroot fakechroot pkexec chpst cgexec numactl "
    "prlimit catchsegv valgrind ssh-agent chronic ifne entr rlwrap nocache eatmydata watch sg"
)
"""Commands that run the command given in their arguments (docs/security.md lists them)."""
SHELLS = _names("sh bash zsh dash ksh mksh ash fish su rbash")
STRING_RUNNERS = frozenset({"eval"})
"""Commands that join their arguments and run them as shell text."""
TEXT_WRAPPERS = _names("watch parallel sg")
"""Wrappers whose arguments are also shell text (``watch 'rm …'``, ``parallel 'rm {}' ::: x``)."""
DASH_C = _names("script runuser flock")
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
COMMAND_VARS = _names(
    "GIT_SSH_COMMAND GIT_SSH GIT_PAGER PAGER MANPAGER SYSTEMD_PAGER GIT_EDITOR EDITOR VISUAL "
    "GIT_SEQUENCE_EDITOR GIT_EXTERNAL_DIFF GIT_ASKPASS SSH_ASKPASS GIT_PROXY_COMMAND "
    "PROMPT_COMMAND PS0 PS1 PS2 PS4 LESSOPEN LESSCLOSE RSYNC_RSH BROWSER"
)
"""Variables whose value a program runs as a command: parsed like ``bash -c``."""
CODE_VARS = _names(
    "LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV SHELLOPTS BASHOPTS GIT_DIR GIT_EXEC_PATH "
    "GIT_TEMPLATE_DIR GIT_ALLOW_PROTOCOL GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM "
    "GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT TAR_OPTIONS PYTHONSTARTUP PERL5OPT RUBYOPT NODE_OPTIONS"
)
"""Variables that make a program load code the rules cannot see: asked."""


@dataclass(frozen=True)
class Word:
    """One shell word: its value when fixed before the command runs, else None; and its text."""

    value: str | None
    raw: str

    @property
    def text(self) -> str:
        return self.value if self.value is not None else self.raw


Scope = tuple[int, ...]
"""Where a command runs: a ``cd`` changes the folder for later commands of its scope and
of scopes inside it, not outside (a subshell, pipeline element or ``$( )`` is a new scope)."""


@dataclass
class SimpleCommand:
    words: list[Word]
    """The command name and its arguments (variable assignments in front are apart)."""
    assignments: list[str] = field(default_factory=list)
    scope: Scope = ()

    @property
    def name(self) -> str | None:
        return self.words[0].value if self.words else None

    @property
    def base(self) -> str:
        """The name without its folder (``/bin/rm`` → ``rm``), or ``""`` if unknown."""
        name = self.name or ""
        return name.rsplit("/", 1)[-1]

    def patterns(self) -> list[str]:
        """What permission rules are matched against: the command as written, by base name,
        and with its variable assignments (``GIT_PAGER=… git log``) when it has any."""
        text = " ".join(w.text for w in self.words)
        out = [text]
        if self.name and "/" in self.name:
            out.append(" ".join([self.base, *(w.text for w in self.words[1:])]))
        if self.assignments:
            out.append(" ".join([*self.assignments, text]))
        return out


@dataclass(frozen=True)
class Redirect:
    op: str
    target: Word
    scope: Scope = ()

    @property
    def writes(self) -> bool:
        return ">" in self.op


@dataclass
class ParsedCommand:
    commands: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    events: list[SimpleCommand | Redirect] = field(default_factory=list)
    """Commands and redirections in the order bash meets them."""
    problems: list[str] = field(default_factory=list)
    """Why part of the command cannot be judged before it runs (then: ask)."""
    arithmetic: bool = False
    """``[[ ]]``, ``(( ))`` or ``$(( ))`` over variables: bash evaluates their contents."""


@lru_cache(maxsize=1)
def _parser() -> Any:
    # tree-sitter loads on the first bash command, not with the tools
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


NEW_SCOPE = frozenset({"subshell", "command_substitution", "process_substitution"})


def parse(command: str) -> ParsedCommand:
    """Every simple command and redirection in ``command``, unwrapped; never raises."""
    out = ParsedCommand()
    _parse_into(command, out, 0, ())
    return out


def _parse_into(source: str, out: ParsedCommand, depth: int, scope: Scope) -> None:
    if depth > MAX_DEPTH:
        out.problems.append("shell strings nested too deep to check")
        return
    try:
        tree = _parser().parse(source.encode("utf-8", errors="surrogateescape"))
    except Exception as exc:  # a grammar/binding failure must ask, not allow
        out.problems.append(f"the command could not be parsed ({exc})")
        return
    if tree.root_node.has_error:
        out.problems.append("the command could not be parsed (a syntax error or unfinished quote)")
    _walk(tree.root_node, out, depth, scope)


def _walk(node: Any, out: ParsedCommand, depth: int, scope: Scope) -> None:
    kind = node.type
    if kind in NEW_SCOPE:
        scope = (*scope, node.start_byte)
    if kind == "command":
        _command(node, out, depth, scope)
    elif kind in ("declaration_command", "unset_command"):
        _declaration(node, out, depth, scope)
    elif kind == "file_redirect":
        _redirect(node, out, scope)
    elif kind in ("test_command", "arithmetic_expansion") or (
        kind == "compound_statement" and bytes(node.text).startswith(b"((")
    ):
        out.arithmetic = out.arithmetic or _has_variables(node)
    elif kind == "subscript":
        out.arithmetic = out.arithmetic or _evaluated_index(node)
    elif kind == "variable_assignment":
        _assignment(node, out, depth, scope)
    elif kind == "expansion" and bytes(node.text).endswith(b"@P}"):
        out.problems.append(f"the prompt expansion {_text(node)!r} runs what the variable holds")
    if kind in LITERALS:
        value = _value(node)
        if value is not None and SUBSCRIPT_CODE.search(value):
            out.problems.append(f"bash may run the array subscript in {_text(node)[:80]!r}")
    for child in node.children:
        _walk(child, out, depth, (*scope, child.start_byte) if kind == "pipeline" else scope)


LITERALS = frozenset({"word", "raw_string", "string", "ansi_c_string", "concatenation"})
SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`|[<>]\()")
"""A literal ``x[$(cmd)]``: ``test -v``, ``printf -v``, ``declare``, ``[[ -eq ]]`` … evaluate
the subscript, running the command, though the text was quoted."""


def _evaluated_index(node: Any) -> bool:
    """``${a[i]}``: an indexed array's subscript is arithmetic over variables."""
    index = node.child_by_field_name("index")
    if index is None:
        return False
    text = _text(index)
    return _has_variables(index) or (index.type == "word" and not text.isdigit() and text not in ("@", "*"))


def _has_variables(node: Any) -> bool:
    if node.type in ("simple_expansion", "expansion", "variable_name"):
        return True
    return any(_has_variables(c) for c in node.children)


def _redirect(node: Any, out: ParsedCommand, scope: Scope) -> None:
    op = next((c.type for c in node.children if not c.is_named), "")
    target = node.child_by_field_name("destination")
    if target is None:
        named = [c for c in node.named_children if c.type != "file_descriptor"]
        target = named[-1] if named else None
    if target is not None:
        redirect = Redirect(op, _word(target), scope)
        out.redirects.append(redirect)
        out.events.append(redirect)


def _assignment(node: Any, out: ParsedCommand, depth: int, scope: Scope) -> None:
    """``GIT_PAGER='rm …'``, in front of a command, alone or after ``export``."""
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    _variable(
        _text(name) if name is not None else "",
        _word(value) if value is not None else Word("", ""),
        out,
        depth,
        scope,
    )


def _variable(name: str, value: Word | None, out: ParsedCommand, depth: int, scope: Scope) -> None:
    """A variable set (``value``) or named (``export X``, ``read X``: None) in the line."""
    if name in COMMAND_VARS and value is not None:
        _run_string(value, out, depth, scope)
    elif name in COMMAND_VARS or name in CODE_VARS or name.startswith("GIT_CONFIG_"):
        out.problems.append(f"{name} makes programs run code the rules cannot see")


def _command(node: Any, out: ParsedCommand, depth: int, scope: Scope) -> None:
    words: list[Word] = []
    assignments: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            assignments.append(_text(child))
        elif child.type == "command_name":
            words.append(_word(child.named_children[0] if child.named_children else child))
        elif child.type not in ("file_redirect", "herestring_redirect", "heredoc_redirect", "comment"):
            words.append(_word(child))
    if not words:
        return
    _add(SimpleCommand(words, assignments, scope), out, depth)


def _declaration(node: Any, out: ParsedCommand, depth: int, scope: Scope) -> None:
    """``declare``/``export``/``local``/``readonly``/``typeset``/``unset`` are commands too
    (the grammar has its own node for them): the rules must see them."""
    keyword = next((c for c in node.children if not c.is_named), None)
    if keyword is None:
        return
    words = [Word(_text(keyword), _text(keyword))]
    for child in node.named_children:
        if child.type == "variable_assignment":
            words.append(Word(_text(child), _text(child)))
        elif child.type not in ("file_redirect", "herestring_redirect", "heredoc_redirect", "comment"):
            words.append(_word(child))
    _add(SimpleCommand(words, scope=scope), out, depth)


def _add(cmd: SimpleCommand, out: ParsedCommand, depth: int) -> None:
    """Record a command and whatever it runs in turn."""
    name = cmd.name
    if name is None or re.search(r"[*?\[{]", name):
        out.problems.append(f"the command name {cmd.words[0].raw!r} is only known when it runs")
    out.commands.append(cmd)
    out.events.append(cmd)
    inner = (*cmd.scope, len(out.events))
    if name is None or depth > MAX_DEPTH:
        return
    base = cmd.base
    args = cmd.words[1:]
    for word in args:  # env GIT_PAGER=…, export PAGER, read EDITOR, printf -v PS4 …
        if word.value is not None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(=.*)?", word.value, re.S):
            name, eq, value = word.value.partition("=")
            _variable(name, Word(value, word.raw) if eq else None, out, depth, inner)
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
        text = word.value
        if base == "tar" and text is not None and text.startswith("exec="):
            text = text.removeprefix("exec=")  # --checkpoint-action=exec=COMMAND
        _run_string(Word(text, word.raw), out, depth, inner)
    if base in WRAPPERS:
        for i, word in enumerate(args):
            if word.value is not None and not word.value.startswith("-") and "=" not in word.value:
                _add(SimpleCommand(args[i:], scope=cmd.scope), out, depth + 1)
                if base in TEXT_WRAPPERS:
                    _run_string(_joined(args[i:]), out, depth, inner)
        split = _option_value(args, ("-S", "--split-string")) if base == "env" else None
        if split is not None:
            _run_string(split, out, depth, inner)
        script = _option_value(args, ("-c", "--command"), short_group="c") if base in DASH_C else None
        if script is not None:
            _run_string(script, out, depth, inner)
    elif base == "script":
        script = _option_value(args, ("-c", "--command"), short_group="c")
        if script is not None:
            _run_string(script, out, depth, inner)
    elif base in ("ssh", "autossh", "scp", "sftp"):
        _ssh(base, args, out, depth, inner)
    elif base in ("fd", "fdfind"):
        for i, word in enumerate(args):
            if word.value in ("-x", "--exec", "-X", "--exec-batch") and args[i + 1 :]:
                _add(SimpleCommand(args[i + 1 :], scope=cmd.scope), out, depth + 1)
                break
    elif base in SHELLS:
        script = _option_value(args, ("-c", "--command"), short_group="c")
        if script is not None:
            _run_string(script, out, depth, inner)
        elif not any(w.value is None or not w.value.startswith("-") for w in args):
            out.problems.append(f"{base} runs commands read from its input, which cannot be checked")
        else:
            _script_file(base, args, out)
    elif base in ("source", "."):
        _script_file(base, args, out)
    elif base in ("mapfile", "readarray"):
        callback = _option_value(args, ("-C",))
        if callback is not None:
            _run_string(callback, out, depth, inner)
    elif base in STRING_RUNNERS or base == "alias" or base == "trap":
        texts = [w for w in args if w.value is None or not w.value.startswith("-")]
        if base == "alias":
            texts = [
                Word(w.value.split("=", 1)[1], w.raw) if w.value and "=" in w.value else w for w in texts
            ]
            for w in texts:
                _run_string(w, out, depth, cmd.scope)
            return
        if base == "trap":
            texts = texts[:1]
        if texts:
            joined = None if any(w.value is None for w in texts) else " ".join(w.text for w in texts)
            shell = cmd.scope if base == "eval" else inner
            _run_string(Word(joined, " ".join(w.raw for w in texts)), out, depth, shell)
    elif base == "find":
        _find_exec(args, out, depth, inner)
    elif base == "git":
        _git(args, out, depth, inner)


def _joined(words: list[Word]) -> Word:
    """Words a program joins with spaces and runs as shell text (None if any is computed)."""
    joined = None if any(w.value is None for w in words) else " ".join(w.text for w in words)
    return Word(joined, " ".join(w.raw for w in words))


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


SSH_VALUE_OPTIONS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
SSH_COMMAND_KEYS = frozenset({"proxycommand", "localcommand", "remotecommand", "knownhostscommand"})


def _ssh(base: str, args: list[Word], out: ParsedCommand, depth: int, scope: Scope) -> None:
    """``ssh host cmd`` runs ``cmd`` through a shell (over there, which may be here);
    ``-o ProxyCommand=…`` and friends run here."""
    for word in _option_values(args, ("-o",)):
        if word.value is None:
            out.problems.append(f"{base} -o {word.raw} is only known when it runs")
            continue
        key, _, value = re.sub(r"\s*=\s*|\s+", "=", word.value, count=1).partition("=")
        if key.lower() in SSH_COMMAND_KEYS:
            _run_string(Word(value, word.raw), out, depth, scope)
    if base not in ("ssh", "autossh"):
        return
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
        _run_string(_joined(remote), out, depth, scope)


def _script_file(base: str, args: list[Word], out: ParsedCommand) -> None:
    """``bash <(echo …)``, ``source /dev/stdin <<< …``: the script is data made on the spot."""
    script = next((w for w in args if w.value is None or not w.value.startswith("-")), None)
    if script is not None and (script.value is None or script.value.startswith(("/dev/", "/proc/"))):
        out.problems.append(f"{base} runs commands from {script.raw!r}, which cannot be checked")


def _run_string(script: Word, out: ParsedCommand, depth: int, scope: Scope) -> None:
    if script.value is None:
        out.problems.append(f"the shell text {script.raw!r} is only known when it runs")
    else:
        _parse_into(script.value, out, depth + 1, scope)


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


def _find_exec(args: list[Word], out: ParsedCommand, depth: int, scope: Scope) -> None:
    i = 0
    while i < len(args):
        if args[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j].value not in (";", "+"):
                j += 1
            if j > i + 1:
                _add(SimpleCommand(args[i + 1 : j], scope=scope), out, depth + 1)
            i = j
        i += 1


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


def _git(args: list[Word], out: ParsedCommand, depth: int, scope: Scope) -> None:
    """Commands git itself runs: ``-c alias.x='!cmd'``, ``core.pager``, ``rebase --exec`` …;
    a setting that may change what it runs (``core.hooksPath``) asks."""
    values = [w.value for w in args]
    i = 0
    while i < len(args):  # global options, up to the subcommand
        v = values[i]
        if v is None or not v.startswith("-"):
            break
        name, eq, inline = v.partition("=")
        value = Word(inline, args[i].raw) if eq else (args[i + 1] if i + 1 < len(args) else None)
        if name == "-c" and value is not None:
            _git_setting(value, out, depth, scope)
        elif name in ("--exec-path", "--config-env") or (name == "-c" and value is None):
            out.problems.append(f"git {args[i].raw} can change the programs git runs")
        i += 1 if eq or name not in GIT_GLOBAL_VALUES else 2
    sub = values[i] if i < len(args) else None
    rest = args[i + 1 :]
    if any(v is not None and v.startswith("ext::") for v in values):
        out.problems.append("git's ext:: transport runs a command")
    for word in _option_values(rest, GIT_COMMAND_OPTIONS.get(sub or "", ())):
        if sub == "clone" and word.value is not None and "=" in word.value and not word.raw.startswith("-u"):
            _git_setting(word, out, depth, scope)  # clone --config key=value
        else:
            _run_string(word, out, depth, scope)
    if sub == "config":  # git config alias.x '!cmd': the setting is checked as with -c
        positional = [w for w in rest if w.value is None or not w.value.startswith("-")]
        if len(positional) >= 2:
            key, value = positional[0], positional[1]
            joined = None if key.value is None or value.value is None else f"{key.value}={value.value}"
            _git_setting(Word(joined, f"{key.raw} {value.raw}"), out, depth, scope)
    rest_values = [w.value for w in rest]
    for first, second in (("bisect", "run"), ("submodule", "foreach")):
        if sub == first and second in rest_values:
            after = rest[rest_values.index(second) + 1 :]
            after = [w for w in after if w.value is None or not w.value.startswith("--")]
            if after:
                _run_string(_joined(after), out, depth, scope)


def _git_setting(setting: Word, out: ParsedCommand, depth: int, scope: Scope) -> None:
    """``-c key=value``: a command in the value is checked; an unknown key asks."""
    if setting.value is None:
        out.problems.append(f"git -c {setting.raw} is only known when it runs")
        return
    key, _, value = setting.value.partition("=")
    if value.startswith("!") or GIT_COMMAND_KEYS.fullmatch(key):
        _run_string(Word(value.lstrip("!"), setting.raw), out, depth, scope)
    elif not GIT_SAFE_KEYS.fullmatch(key):
        out.problems.append(f"git -c {key} may change what git runs")


# ------------------------------------------------------------ words


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", errors="replace")


def _word(node: Any) -> Word:
    return Word(_value(node), _text(node))


def _value(node: Any) -> str | None:
    """The word as bash passes it on, when no expansion is involved; None otherwise."""
    kind = node.type
    text = _text(node)
    if kind == "word":
        return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.S)
    if kind == "number":
        return text
    if kind == "raw_string":
        return text[1:-1]
    if kind == "string":
        parts: list[str] = []
        for child in node.named_children:
            if child.type != "string_content":
                return None
            parts.append(re.sub(r'\\([\\"$`])', r"\1", _text(child).replace("\\\n", "")))
        return "".join(parts)
    if kind == "translated_string":
        return _value(node.named_children[0]) if node.named_children else ""
    if kind == "ansi_c_string":
        return _ansi_c(text[2:-1])
    if kind == "concatenation":
        values = [_value(c) for c in node.named_children]
        return None if any(v is None for v in values) else "".join(v or "" for v in values)
    return None


def _ansi_c(body: str) -> str | None:
    if "\\c" in body:
        return None
    try:
        return codecs.decode(body.encode("latin-1", errors="backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return None
