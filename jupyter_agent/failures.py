"""Expected failures as one line a user can act on, and the exit code the CLI returns.

Front ends (the CLI, the magics) share this list so a broken ``jupyter-agent.json``, a
full disk or a missing file reads the same everywhere: which file, what is wrong, what
to do — never a traceback. ``--debug`` / ``JUPYTER_AGENT_DEBUG=1`` bring tracebacks back.
Everything is imported lazily: this module is loaded by ``%load_ext``'s code paths.
"""

from __future__ import annotations

import errno
from typing import NamedTuple

EXIT_OK = 0
EXIT_FAILED = 1
"""The run or command failed (a provider error, a store that cannot be used, a bug)."""
EXIT_USAGE = 2
"""Bad arguments or configuration: fix the command line, the environment or the file."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT, as shells report it)."""


class UsageProblem(Exception):
    """A command-line argument that cannot work (a folder given as an output file…)."""


class Explained(NamedTuple):
    message: str
    exit_code: int


def explain(exc: BaseException, *, cli: bool = False) -> Explained | None:
    """The one line for an expected failure; None for a bug (which deserves a traceback).
    ``cli``: worded for a terminal (flags and environment variables, not magics)."""
    # %load_ext's code paths import this module: what it tells apart loads on the first failure
    from jupyter_agent.agent.workspace import ConfigurationError
    from jupyter_agent.config import ConfigError
    from jupyter_agent.storage.lease import SessionBusyError
    from jupyter_agent.storage.sqlite_store import SessionNotFound, StoreError

    if isinstance(exc, ConfigurationError) and cli:
        return Explained(exc.for_cli, EXIT_USAGE)
    if isinstance(exc, (ConfigError, ConfigurationError, UsageProblem)):
        return Explained(str(exc), EXIT_USAGE)
    if isinstance(exc, SessionNotFound):
        return Explained(str(exc), EXIT_USAGE)
    if isinstance(exc, (StoreError, SessionBusyError)):
        return Explained(str(exc), EXIT_FAILED)
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
