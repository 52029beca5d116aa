"""A store on a network file system (NFS, SMB, FUSE) uses SQLite's rollback journal: WAL's
shared-memory index needs one machine's memory. Detection reads the mount table; the
``JUPYTER_AGENT_STORE_FS`` override forces either answer (here: the network path)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.core.messages import Session
from jupyter_agent.storage import database, filesystem
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SqliteStore

MOUNTINFO = """\
22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw
40 22 0:50 / /home rw,relatime - nfs4 server:/export/home rw,vers=4.2
41 40 0:51 / /home/ada/scratch rw - tmpfs tmpfs rw
42 22 0:52 / /mnt/my\\040share rw - cifs //nas/share rw
43 22 0:53 / /mnt/sshfs rw - fuse.sshfs ada@host:/ rw
"""


def _mode(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        return str(conn.execute("PRAGMA journal_mode").fetchone()[0])
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("path", "kind", "network"),
    [
        ("/home/ada/project", "nfs4", True),
        ("/home/ada/scratch/x", "tmpfs", False),  # a local mount inside the NFS one
        ("/mnt/my share/notebooks", "cifs", True),  # an escaped space in the mount point
        ("/mnt/sshfs/data", "fuse.sshfs", True),
        ("/var/lib", "ext4", False),
    ],
)
def test_the_mount_table_says_which_file_system(path: str, kind: str, network: bool) -> None:
    found = filesystem.linux_type(Path(path), MOUNTINFO)
    assert found == kind and filesystem.is_network(found) is network


def test_a_network_store_uses_the_rollback_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(filesystem.FS_VAR, "network")
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1", title="on nfs"))
    db = store.path
    assert _mode(db) == "delete"
    assert not db.with_name(db.name + "-wal").exists() and not db.with_name(db.name + "-shm").exists()
    store.close()
    with SqliteStore(db) as again:  # reopened: the same mode, the same sessions
        assert again.get_session("ses_1").title == "on nfs"
    monkeypatch.setenv(filesystem.FS_VAR, "local")
    with SqliteStore(db) as local:  # the same file on a local disk goes back to WAL
        assert local.get_session("ses_1").title == "on nfs"
        assert _mode(db) == "wal"


def test_a_wal_store_moved_to_a_network_mount_switches(tmp_path: Path) -> None:
    with SqliteStore(db_path(tmp_path), network=None) as store:
        store.create_session(Session(id="ses_1"))
        db = store.path
    assert _mode(db) == "wal"
    with SqliteStore(db, network="nfs4") as store:  # an injected detector's answer
        assert store.get_session("ses_1").id == "ses_1"
    assert _mode(db) == "delete"


KILLED_WRITER = """
import os, signal, sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA cache_size=1")  # pages spill to the file before the commit
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE session SET data = json_set(data, '$.title', 'half written')")
conn.execute("CREATE TABLE filler AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
             " WHERE i < 300) SELECT randomblob(4000) AS b FROM n")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_writers_journal_is_rolled_back_on_open(tmp_path: Path) -> None:
    """A kernel killed mid-write on NFS leaves a hot journal, which the read-only look at the
    schema version cannot undo ("attempt to write a readonly database"): it is rolled back."""
    with SqliteStore(db_path(tmp_path), network="nfs4") as store:
        store.create_session(Session(id="ses_1", title="kept"))
        db = store.path
    subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], check=False, timeout=60)
    assert db.with_name(db.name + "-journal").stat().st_size > 0
    with SqliteStore(db, network="nfs4") as store:
        assert store.get_session("ses_1").title == "kept"
        assert store.list_sessions()[0].title == "kept"


def test_a_store_another_kernel_holds_in_wal_mode_opens_at_once(tmp_path: Path) -> None:
    """Switching out of WAL needs the file to itself: with another kernel (an older version,
    or one told the file system is local) using it, the store opens in WAL mode at once,
    with a notice, instead of waiting minutes as for a lock."""
    with SqliteStore(db_path(tmp_path), network=None) as store:
        store.create_session(Session(id="ses_1"))
        db = store.path
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("SELECT COUNT(*) FROM session").fetchone()  # keeps the WAL index in use
    try:
        with SqliteStore(db, network="nfs4") as store:
            assert store.get_session("ses_1").id == "ses_1"
            assert store.notice and "network file system" in store.notice and "WAL mode" in store.notice
        assert _mode(db) == "wal"
    finally:
        other.close()


def test_no_locking_on_a_network_mount_is_one_clear_line(tmp_path: Path) -> None:
    exc = sqlite3.OperationalError("locking protocol")
    exc.sqlite_errorcode = 15  # type: ignore[attr-defined]
    message = str(database.store_error(tmp_path / "sessions.db", exc, "nfs"))
    assert "File locking does not work" in message and "nfs" in message and "JUPYTER_AGENT_STORE" in message
    assert "\n" not in message
