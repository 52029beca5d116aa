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
    "chrt taskset unbuffer strace ltrace flock caffeinate busybox parallel then do else coproc"
)
"""Commands that run the command given in their arguments."""
SHELLS = _names("sh bash zsh dash ksh mksh ash fish su rbash")
STRING_RUNNERS = frozenset({"eval", "watch"})
"""Commands that join their arguments and run them as shell text."""


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
    if base in WRAPPERS:
        for i, word in enumerate(args):
            if word.value is not None and not word.value.startswith("-") and "=" not in word.value:
                _add(SimpleCommand(args[i:], scope=cmd.scope), out, depth + 1)
        split = _option_value(args, ("-S", "--split-string")) if base == "env" else None
        if split is not None:
            _run_string(split, out, depth, inner)
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


GIT_COMMAND_KEYS = re.compile(r"(alias\..*|.*(pager|editor|command|external|program|helper|fsmonitor))", re.I)
"""``git -c key=value`` settings whose value git runs as a shell command."""


def _git(args: list[Word], out: ParsedCommand, depth: int, scope: Scope) -> None:
    """Commands git itself runs: ``-c alias.x='!cmd'``, ``core.pager``, ``rebase --exec`` …"""
    values = [w.value for w in args]
    for i, word in enumerate(args[:-1]):
        nxt = args[i + 1]
        if word.value == "-c" and nxt.value is not None and "=" in nxt.value:
            key, value = nxt.value.split("=", 1)
            if value.startswith("!") or GIT_COMMAND_KEYS.fullmatch(key):
                _run_string(Word(value.lstrip("!"), nxt.raw), out, depth, scope)
        elif word.value == "-c" and nxt.value is None:
            out.problems.append(f"git -c {nxt.raw} is only known when it runs")
        elif word.value in ("--exec", "-x"):
            _run_string(nxt, out, depth, scope)
    for word in args:
        if word.value is not None and word.value.startswith("--exec="):
            _run_string(Word(word.value.split("=", 1)[1], word.raw), out, depth, scope)
    for first, second in (("bisect", "run"), ("submodule", "foreach")):
        if first in values and second in values and values.index(second) > values.index(first):
            rest = args[values.index(second) + 1 :]
            rest = [w for w in rest if w.value is None or not w.value.startswith("--")]
            if rest:
                joined = None if any(w.value is None for w in rest) else " ".join(w.text for w in rest)
                _run_string(Word(joined, " ".join(w.raw for w in rest)), out, depth, scope)


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
