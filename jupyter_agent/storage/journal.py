"""The store's journal: WAL on a local disk, SQLite's rollback journal on a network file system.

WAL's index lives in shared memory (``-shm``), which two machines mounting one NFS or SMB
share do not share (``filesystem.py`` tells which file system it is). The rollback journal
needs working file locks instead; where there are none the store refuses in one line. A
kernel killed mid-write leaves a hot journal that is rolled back before the file is read.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

_BUSY = (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED
_PROTOCOL = 15  # SQLITE_PROTOCOL
_IOERR_LOCK = 3850  # SQLITE_IOERR_LOCK: the file system refused a lock


def set_mode(conn: sqlite3.Connection, wal: bool) -> str:
    """Put the file in WAL mode, or the rollback journal on a network file system; returns the
    mode in effect. Another connection using the file keeps its mode (SQLite refuses to switch
    then): waiting could take as long as that kernel runs."""
    try:
        mode = conn.execute(f"PRAGMA journal_mode={'WAL' if wal else 'DELETE'}").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF not in _BUSY:
            raise
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    # WAL: durable across a killed process as NORMAL; the rollback journal needs FULL for that
    conn.execute(f"PRAGMA synchronous={'NORMAL' if str(mode).lower() == 'wal' else 'FULL'}")
    return str(mode).lower()


def kept_wal(path: Path) -> str:
    """Said when another process keeps a network store in WAL mode."""
    return (
        f"The session store {path} is on a network file system, where WAL mode is not safe, but "
        "another process has it open in WAL mode; it stays so until every kernel using it has "
        "restarted. Until then, use it from one machine at a time."
    )


def roll_back(path: Path, timeout: float) -> None:
    """A killed writer's rollback journal (the store on a network file system): a read-only
    connection cannot undo it, so a plain one reads once, which rolls it back (whatever the
    schema's version: the journal only restores the file as it was)."""
    conn = sqlite3.connect(path, timeout=timeout)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    finally:
        conn.close()


def no_locks(exc: sqlite3.Error) -> bool:
    """SQLite could not lock the file: the file system does not support it (an NFS mount
    without its lock daemon, some FUSE and SMB mounts)."""
    full = getattr(exc, "sqlite_errorcode", None)
    text = str(exc).lower()
    code = full & 0xFF if isinstance(full, int) else None
    return full == _IOERR_LOCK or code == _PROTOCOL or "locking protocol" in text


def no_locks_message(path: Path, network: str, exc: sqlite3.Error) -> str:
    return (
        f"File locking does not work for the session store {path}, which is on a network "
        f"file system ({network}) ({exc}); two kernels could damage it there. Set `store` "
        "(or JUPYTER_AGENT_STORE) to a folder on a local disk, e.g. /tmp/jupyter-agent."
    )
