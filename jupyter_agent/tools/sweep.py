"""Move aside what a command created where it should not have, without following a link.

A protected path that did not exist when a command started could not be made read-only;
if the command made it, it is renamed to ``<name>.blocked`` when the command ends (by the
agent, or by its guardian process when the agent was killed: ``process_guard``). This is a
convenience, not the boundary (configuration is applied only once trusted, ``trust.py``;
git's own folders are staged, ``git_stage.py``), but it must never do harm: every
component is opened with ``O_NOFOLLOW`` below the writable folder the path lies in, so a
symlink a command planted (``.git`` → another repository, ``~/.local`` → ``/usr``) is moved
aside itself instead of being followed, and a folder the command made read-only
(``chmod a-w .``) is given back its owner's write permission first.

Standard library only: the guardian runs this file on its own (``runpy.run_path``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

Entry = tuple[str, list[str]]
"""(the folder that existed when the command started, the names below it that did not)."""
NEW_FOLDERS_KEPT = frozenset({".git"})
"""A folder the command made under one of these names stays (``git init`` is work); what is
protected inside it is swept on its own."""


def _owner_rwx(fd: int) -> bool:
    """Give the folder behind ``fd`` its owner's rwx back (a command may have taken it)."""
    try:
        mode = os.stat(fd).st_mode
        os.chmod(f"/proc/self/fd/{fd}", stat.S_IMODE(mode) | stat.S_IRWXU)
    except OSError:
        return False
    return True


def _open_dir(name: str, parent: int) -> int | None:
    """``name`` in ``parent`` as a folder fd, never through a link (None: missing, a link,
    or not a folder)."""
    for attempt in (0, 1):
        try:
            return os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
        except PermissionError:
            if attempt or not _owner_rwx(parent):
                return None
        except OSError:
            return None
    return None


def _aside(name: str, parent: int) -> str:
    """A free ``<name>.blocked`` (``.blocked2`` …) in ``parent``."""
    n, aside = 1, f"{name}.blocked"
    while True:
        try:
            os.lstat(aside, dir_fd=parent)
        except FileNotFoundError:
            return aside
        n += 1
        aside = f"{name}.blocked{n}"


def _move(name: str, parent: int, shown: str) -> str | None:
    """Rename ``name`` (whatever it is, a link included) aside in ``parent``; one line."""
    aside = _aside(name, parent)
    for attempt in (0, 1):
        try:
            os.rename(name, aside, src_dir_fd=parent, dst_dir_fd=parent)
            return f"{shown} is protected and was created by the command, so it was moved to {aside}."
        except PermissionError as exc:
            if attempt or not _owner_rwx(parent):
                return f"{shown} is protected and was created by the command; moving it aside failed: {exc}"
        except OSError as exc:
            return f"{shown} is protected and was created by the command; moving it aside failed: {exc}"
    return None


def _kept(name: str, info: os.stat_result) -> bool:
    return name in NEW_FOLDERS_KEPT and stat.S_ISDIR(info.st_mode)


def sweep_one(existing: str, missing: list[str]) -> str | None:
    """Move aside the path ``existing/missing…`` the command made, or a link it made on the
    way there (``existing`` itself is a mount point during the command: it is still the
    folder it was)."""
    try:
        fd = os.open(existing, os.O_PATH | os.O_DIRECTORY)
    except OSError:
        return None
    shown = existing
    try:
        for i, name in enumerate(missing):
            shown = os.path.join(shown, name)
            try:
                info = os.lstat(name, dir_fd=fd)
            except PermissionError:
                if not _owner_rwx(fd):
                    return None
                try:
                    info = os.lstat(name, dir_fd=fd)
                except OSError:
                    return None
            except OSError:
                return None  # not made (or not reachable): nothing to move
            last = i == len(missing) - 1
            if stat.S_ISLNK(info.st_mode) or (last and not _kept(name, info)):
                return _move(name, fd, shown)  # the path, or a link in its way (never followed)
            if last or not stat.S_ISDIR(info.st_mode):
                return None
            inner = _open_dir(name, fd)
            if inner is None:
                return None
            os.close(fd)
            fd = inner
        return None
    finally:
        os.close(fd)


def sweep(entries: Iterable[Entry]) -> list[str]:
    """Sweep every entry, shallowest first (a planted ``.git`` link goes before anything
    below it is looked at); one line per path moved or left."""
    notes: list[str] = []
    for existing, missing in sorted(entries, key=lambda e: len(e[1])):
        if missing:
            note = sweep_one(existing, list(missing))
            if note and note not in notes:
                notes.append(note)
    return notes
