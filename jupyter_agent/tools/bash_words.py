"""What a parsed shell line is made of: words, simple commands, redirections (``bash_parse``)."""

from __future__ import annotations

from dataclasses import dataclass, field


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
    stdin: list[str] = field(default_factory=list)
    """Text given on its input by ``<<<`` or a here-document (``make -f - <<< …`` runs it)."""

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
