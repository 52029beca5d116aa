"""One base for every failure a user is told about in one line instead of a traceback.

The front ends (the magics, the side panel, the CLI) catch :class:`JupyterAgentError`, show
:meth:`~JupyterAgentError.for_user` and, in a terminal, exit with its ``exit_code``; whatever
is not one is a bug and keeps its traceback. The exit codes live here so the class that
raises a failure decides, once, what it means for a script.
"""

from __future__ import annotations

from typing import ClassVar

EXIT_OK = 0
EXIT_FAILED = 1
"""The run or command failed (a provider error, a store that cannot be used, a bug)."""
EXIT_USAGE = 2
"""Bad arguments or configuration: fix the command line, the environment or the file."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as shells report it)."""


class JupyterAgentError(Exception):
    """An expected failure: its message says what happened and what to do."""

    exit_code: ClassVar[int] = EXIT_FAILED

    def for_user(self, *, cli: bool = False) -> str:
        """What the user reads (``cli``: worded for a terminal: flags, not magics)."""
        return str(self)


class UsageFailure(JupyterAgentError):
    """Bad arguments or configuration: the user fixes the command, the environment or a file."""

    exit_code: ClassVar[int] = EXIT_USAGE


class NameNotFound(UsageFailure, KeyError):
    """A name the user typed (a session, an agent, a message) that does not exist. A
    ``KeyError`` for callers that look names up; any other ``KeyError`` stays a bug."""

    missing: ClassVar[str] = "not found"

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else self.missing
