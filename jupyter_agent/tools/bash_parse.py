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
from functools import lru_cache
from typing import Any

from jupyter_agent.tools.bash_programs import (
    RUN_SUBCOMMANDS,
    SHELLS,
    STRING_RUNNERS,
    WRAPPERS,
    Run,
    runs,
    variable,
)
from jupyter_agent.tools.bash_words import ParsedCommand, Redirect, Scope, SimpleCommand, Word

__all__ = [
    "RUN_SUBCOMMANDS",
    "SHELLS",
    "STRING_RUNNERS",
    "WRAPPERS",
    "ParsedCommand",
    "Redirect",
    "Scope",
    "SimpleCommand",
    "Word",
    "parse",
]

MAX_DEPTH = 4
"""Shell strings inside shell strings (``bash -c "eval '…'"``) deeper than this are refused."""


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
    first = len(out.commands)
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
    if kind == "redirected_statement" and len(out.commands) > first:
        body = node.child_by_field_name("body")
        if body is not None and body.type == "command":  # ``tclsh <<'EOF' … EOF``: its input
            for redirect in node.named_children:
                if redirect.type == "heredoc_redirect":
                    texts = [_text(c) for c in redirect.named_children if c.type == "heredoc_body"]
                    out.commands[first].stdin.extend(texts)


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
    found = variable(
        _text(name) if name is not None else "", _word(value) if value is not None else Word("", "")
    )
    _apply(found, out, depth, scope, scope)


def _command(node: Any, out: ParsedCommand, depth: int, scope: Scope) -> None:
    words: list[Word] = []
    assignments: list[str] = []
    stdin: list[str] = []
    for child in node.named_children:
        if child.type == "variable_assignment":
            assignments.append(_text(child))
        elif child.type == "command_name":
            words.append(_word(child.named_children[0] if child.named_children else child))
        elif child.type == "herestring_redirect":
            stdin += [_word(c).text for c in child.named_children]
        elif child.type not in ("file_redirect", "heredoc_redirect", "comment"):
            words.append(_word(child))
    if not words:
        return
    _add(SimpleCommand(words, assignments, scope, stdin), out, depth)


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
    """Record a command and whatever it runs in turn (``bash_programs``)."""
    name = cmd.name
    if name is None or re.search(r"[*?\[{]", name):
        out.problems.append(f"the command name {cmd.words[0].raw!r} is only known when it runs")
    out.commands.append(cmd)
    out.events.append(cmd)
    if name is None or depth > MAX_DEPTH:
        return
    _apply(runs(cmd), out, depth, cmd.scope, (*cmd.scope, len(out.events)))


def _apply(found: list[Run], out: ParsedCommand, depth: int, here: Scope, inner: Scope) -> None:
    for run in found:
        scope = here if run.here else inner
        if run.problem is not None:
            out.problems.append(run.problem)
        elif run.words is not None:
            _add(SimpleCommand(list(run.words), scope=scope), out, depth + 1)
        elif run.text is not None:
            _run_string(run.text, out, depth, scope)


def _run_string(script: Word, out: ParsedCommand, depth: int, scope: Scope) -> None:
    if script.value is None:
        out.problems.append(f"the shell text {script.raw!r} is only known when it runs")
    else:
        _parse_into(script.value, out, depth + 1, scope)


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
