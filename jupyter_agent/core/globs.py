"""Glob patterns matched without backtracking, and bounded before any matching starts.

A glob turned into a regex is fine with one or two stars, but ``**a**a**a…**b`` against a
name of forty ``a`` makes Python's ``re`` try every way to split the name: it never ends,
and a thread cannot be interrupted. Patterns with more stars than that are matched by
walking all pattern positions at once over the path (time linear in path × pattern).
Braces multiply (``{a,b}`` ×24 is 16 million patterns), so their expansion stops at
``MAX_ALTERNATIVES`` with an error that says so, as does a pattern over ``MAX_PATTERN``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

MAX_PATTERN = 1_000
"""Characters in one glob pattern."""
MAX_ALTERNATIVES = 256
"""Patterns one ``{a,b}`` pattern may expand to."""
REGEX_STARS = 2
"""Up to this many ``*`` per alternative, ``re`` is safe (at worst quadratic)."""

_BRACE = re.compile(r"\{([^{}]*)\}")
Matcher = Callable[[str], bool]


class PatternError(ValueError):
    """A pattern that cannot be used; the message says what to change.

    Never reaches a front end: the ``glob`` and ``grep`` tools turn it into a ``ToolError`` the model
    reads, the instruction files' lookup into a "not used" note (``context/system.py``)."""


class PatternTooLarge(PatternError):
    """The pattern would take too long to expand or match."""


def expand_braces(pattern: str, limit: int = MAX_ALTERNATIVES) -> list[str]:
    """``*.{ts,tsx}`` → ``["*.ts", "*.tsx"]``; more than ``limit`` results raise."""
    done: list[str] = []
    todo = [pattern]
    while todo:
        current = todo.pop()
        match = _BRACE.search(current)
        if match is None:
            done.append(current)
            if len(done) > limit:
                raise PatternTooLarge(
                    f"the pattern's {{…}} groups expand to more than {limit} patterns; "
                    "use fewer alternatives (or several calls)"
                )
            continue
        head, tail = current[: match.start()], current[match.end() :]
        todo.extend(head + alt + tail for alt in reversed(match.group(1).split(",")))
        if len(todo) + len(done) > limit:
            raise PatternTooLarge(
                f"the pattern's {{…}} groups expand to more than {limit} patterns; "
                "use fewer alternatives (or several calls)"
            )
    return done


def _tokens(pattern: str) -> list[tuple[str, str]]:
    """``lit`` c, ``one`` (?), ``cls`` [..], ``star`` (*), ``any`` (**), ``dirs`` (**/)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(pattern)
    while i < n:
        if pattern.startswith("**/", i):
            out.append(("dirs", ""))
            i += 3
        elif pattern.startswith("**", i):
            out.append(("any", ""))
            i += 2
        elif pattern[i] == "*":
            out.append(("star", ""))
            i += 1
        elif pattern[i] == "?":
            out.append(("one", ""))
            i += 1
        elif pattern[i] == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : end]
            out.append(("cls", "[" + ("^" + body[1:] if body[0] in "!^" else body) + "]"))
            i = end + 1
        else:
            out.append(("lit", pattern[i]))
            i += 1
    return out


def _regex(tokens: list[tuple[str, str]]) -> str:
    pieces = {"dirs": "(?:.*/)?", "any": ".*", "star": "[^/]*", "one": "[^/]"}
    return "".join(
        pieces.get(kind) or ("(?!/)" + value if kind == "cls" else re.escape(value)) for kind, value in tokens
    )


class _Positions:
    """A path matcher that tracks every pattern position a prefix of the path can reach."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.kinds = [kind for kind, _ in tokens]
        self.values = [value for _, value in tokens]
        self.classes = {i: re.compile(v) for i, (k, v) in enumerate(tokens) if k == "cls"}
        self.n = len(tokens)

    def _closure(self, states: set[int]) -> set[int]:
        stack = list(states)
        while stack:
            i = stack.pop()
            if i < self.n and self.kinds[i] in ("star", "any", "dirs") and i + 1 not in states:
                states.add(i + 1)
                stack.append(i + 1)
        return states

    def __call__(self, path: str) -> bool:
        n, kinds, values = self.n, self.kinds, self.values
        inside = n + 1  # state inside + i: within the ``.*/`` of a ``**/`` at position i
        states = self._closure({0})
        for ch in path:
            nxt: set[int] = set()
            for st in states:
                if st > n:
                    nxt.add(st)
                    if ch == "/":
                        nxt.add(st - inside + 1)
                    continue
                if st == n:
                    continue
                kind = kinds[st]
                if kind == "lit":
                    if ch == values[st]:
                        nxt.add(st + 1)
                elif kind == "star":
                    if ch != "/":
                        nxt.add(st)
                elif kind == "any":
                    nxt.add(st)
                elif kind == "dirs":
                    nxt.add(st + inside)
                    if ch == "/":
                        nxt.add(st + 1)
                elif ch != "/" and (kind == "one" or self.classes[st].fullmatch(ch)):
                    nxt.add(st + 1)
            if not nxt:
                return False
            states = self._closure(nxt)
        return n in states


def glob_matcher(pattern: str) -> Matcher:
    """A test for relative POSIX paths: ``*`` stays in one folder, ``**/`` spans any."""
    if len(pattern) > MAX_PATTERN:
        raise PatternTooLarge(f"the pattern has {len(pattern)} characters; at most {MAX_PATTERN}")
    regexes: list[str] = []
    slow: list[_Positions] = []
    for alternative in expand_braces(pattern):
        tokens = _tokens(alternative.lstrip("/").removeprefix("./"))
        stars = sum(kind in ("star", "any", "dirs") for kind, _ in tokens)
        if stars <= REGEX_STARS:
            regexes.append(_regex(tokens))
        else:
            try:
                slow.append(_Positions(tokens))
            except re.error as exc:
                raise PatternError(f"the pattern has an invalid [...] class ({exc})") from None
    try:
        fast = re.compile("(?:" + "|".join(regexes) + r")\Z") if regexes else None
    except re.error as exc:
        raise PatternError(f"the pattern has an invalid [...] class ({exc})") from None

    def match(path: str) -> bool:
        if fast is not None and fast.match(path):
            return True
        return any(m(path) for m in slow)

    return match
