"""Expected failures as one line a user can act on, and the exit code the CLI returns.

Front ends (the CLI, the magics) share this list so a broken ``jupyter-agent.json``, a
full disk or a missing file reads the same everywhere: which file, what is wrong, what
to do — never a traceback. ``--debug`` / ``JUPYTER_AGENT_DEBUG=1`` bring tracebacks back.
Every expected failure derives from ``core.errors.JupyterAgentError``, which carries its
message and exit code; a file the OS refused is told from its ``errno``.
"""

from __future__ import annotations

import errno
from typing import NamedTuple

from jupyter_agent.core.errors import EXIT_FAILED, JupyterAgentError, UsageFailure


class UsageProblem(UsageFailure):
    """A command-line argument that cannot work (a folder given as an output file…)."""


class Explained(NamedTuple):
    message: str
    exit_code: int


def explain(exc: BaseException, *, cli: bool = False) -> Explained | None:
    """The one line for an expected failure; None for a bug (which deserves a traceback).
    ``cli``: worded for a terminal (flags and environment variables, not magics)."""
    if isinstance(exc, JupyterAgentError):
        return Explained(exc.for_user(cli=cli), exc.exit_code)
    if isinstance(exc, OSError) and exc.filename is not None:
        what = (exc.strerror or str(exc)).lower()
        todo = _TODO.get(exc.errno or 0)
        return Explained(f"{exc.filename}: {what}" + (f"; {todo}" if todo else ""), EXIT_FAILED)
    return None


_TODO = {
    errno.ENOSPC: "free some space and run again",
    errno.EROFS: "choose a folder you can write to",
    errno.EACCES: "check its permissions or choose a folder you can write to",
    errno.EPERM: "check its permissions or choose a folder you can write to",
    errno.EISDIR: "a folder has that name: give another file name",
    errno.ENOENT: "check the path",
}
"""What to do about a file that could not be read or written, by ``errno``."""
