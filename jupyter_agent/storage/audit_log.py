"""The admin's audit trail: one JSON line per tool call, to a folder or to syslog.

``audit`` (a setting of the admin's file, locked once set) names a folder or ``syslog``.
In a folder each user writes ``<user>.jsonl`` (so the folder can be shared, e.g. mode
1733, without users writing each other's files); a file past ``MAX_BYTES`` is renamed
``<user>.jsonl.1`` (older ones shift up to ``KEEP``) before the next line. Lines are
appended under an exclusive ``flock``, so two kernels of one user never interleave or
rotate twice. Arguments arrive redacted; long values are cut here (``cap``).
"""

from __future__ import annotations

import contextlib
import fcntl
import getpass
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

SYSLOG = "syslog"
MAX_BYTES = 10 * 1024 * 1024
KEEP = 5
VALUE_CAP = 200
"""Characters kept of one argument value (a whole file's content is not an audit record)."""
ARGS_CAP = 2000
"""Characters of all the arguments together, as JSON."""
FILE_SUFFIX = ".jsonl"


def user(env: Mapping[str, str] | None = None) -> str:
    """Who runs the kernel: JupyterHub's user name (every user may be ``jovyan`` in a
    container), else the login name."""
    env = os.environ if env is None else env
    named = env.get("JUPYTERHUB_USER", "").strip()
    if named:
        return named
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # a uid without a passwd entry (some containers)
        return str(os.getuid())


def cap(value: Any, limit: int = VALUE_CAP) -> Any:
    """``value`` with every string longer than ``limit`` cut (saying how long it was)."""
    if isinstance(value, str):
        return value if len(value) <= limit else f"{value[:limit]}… ({len(value)} characters)"
    if isinstance(value, Mapping):
        return {str(k): cap(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [cap(v, limit) for v in value[:50]]
    return value


def capped_arguments(arguments: Mapping[str, Any]) -> Any:
    """The arguments for one line: values cut, the whole at most ``ARGS_CAP`` characters."""
    shown = cap(dict(arguments))
    text = json.dumps(shown, ensure_ascii=False, default=str)
    if len(text) <= ARGS_CAP:
        return shown
    return {"truncated": text[:ARGS_CAP] + "…"}


def _file_name(who: str) -> str:
    return re.sub(r"[^A-Za-z0-9._@-]", "_", who)[:64] or "user"


class AuditLog:
    """Appends audit records to ``target`` (a folder, or ``syslog``) for one user."""

    def __init__(
        self, target: str, who: str | None = None, *, max_bytes: int = MAX_BYTES, keep: int = KEEP
    ) -> None:
        self.target = target
        self.user = who or user()
        self.max_bytes = max_bytes
        self.keep = keep
        self.problem: str | None = None
        """Why the last line could not be written (the front end says it once)."""

    @property
    def file(self) -> Path | None:
        if self.target == SYSLOG:
            return None
        return Path(self.target).expanduser() / f"{_file_name(self.user)}{FILE_SUFFIX}"

    def write(self, record: Mapping[str, Any]) -> bool:
        """Append one record; False (and ``problem`` set) when it could not be written."""
        full = {"user": self.user, **record}
        try:
            if self.file is None:  # ASCII: syslog takes no lone surrogate a tool's output may hold
                _syslog(json.dumps(full, default=str))
            else:
                self._append(self.file, json.dumps(full, ensure_ascii=False, default=str))
        except (OSError, ValueError) as exc:  # a full disk, a missing folder, a value JSON refuses
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self.problem = f"The audit log {self.file or SYSLOG} cannot be written ({why})."
            return False
        self.problem = None
        return True

    def _append(self, file: Path, line: str) -> None:
        file.parent.mkdir(parents=True, exist_ok=True)
        data = (line + "\n").encode("utf-8", "replace")
        fd = _locked(file)
        try:
            if os.fstat(fd).st_size and os.fstat(fd).st_size + len(data) > self.max_bytes:
                self._rotate(file)
                os.close(fd)
                fd = _locked(file)
            os.write(fd, data)
        finally:
            os.close(fd)

    def _rotate(self, file: Path) -> None:
        """``x.jsonl`` → ``x.jsonl.1`` → … → ``x.jsonl.<keep>`` (the oldest dropped). Another
        kernel that waited for the lock meanwhile finds the new, small file and does not rotate."""
        for n in range(self.keep, 0, -1):
            older = file.with_name(f"{file.name}.{n}")
            newer = file.with_name(f"{file.name}.{n - 1}") if n > 1 else file
            if newer.exists():
                os.replace(newer, older)


def _locked(file: Path) -> int:
    """``file`` opened for appending under an exclusive lock. A kernel that waited while
    another rotated holds the renamed file: it opens the new one instead."""
    while True:
        fd = os.open(file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(file).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)


def _syslog(line: str) -> None:
    # syslog is POSIX-only and only needed by admins who chose it
    import syslog

    syslog.openlog("jupyter-agent", 0, syslog.LOG_USER)
    syslog.syslog(syslog.LOG_INFO, line)


def files(folder: Path) -> list[Path]:
    """Every audit file in ``folder``, rotated ones included, oldest first."""

    def order(path: Path) -> tuple[str, int]:
        stem, _, n = path.name.partition(f"{FILE_SUFFIX}.")
        return (stem.removesuffix(FILE_SUFFIX), -int(n) if n.isdigit() else 0)

    found = [p for p in Path(folder).glob(f"*{FILE_SUFFIX}*") if p.is_file()]
    return sorted(found, key=order)


def records(folder: Path, skipped: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """The records of every file in ``folder``; lines that are not JSON objects are counted
    in ``skipped`` (one entry per file: ``name: N lines``), never fatal."""
    for path in files(folder):
        bad = 0
        with contextlib.suppress(OSError), path.open(encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except ValueError:
                    bad += 1
                    continue
                if isinstance(record, dict):
                    yield record
                else:
                    bad += 1
        if bad and skipped is not None:
            skipped.append(f"{path.name}: {bad} line(s)")


Sink = Callable[[dict[str, Any]], None]
