"""Is the store on a network file system? There SQLite's WAL mode is not safe.

WAL keeps its index in a shared-memory file (``-shm``) that every connection maps; on NFS,
SMB or a FUSE mount two machines (or even two kernels) do not see one memory, so the
database can be corrupted. The store then uses the rollback journal (``database.py``).
Linux reads the mount table (``/proc/self/mountinfo``); macOS asks ``statfs`` through
ctypes. ``JUPYTER_AGENT_STORE_FS=network`` or ``local`` overrides the answer when it is
wrong (an unusual mount, or a test).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from collections.abc import Mapping
from pathlib import Path

FS_VAR = "JUPYTER_AGENT_STORE_FS"
NETWORK = (
    "nfs",
    "nfs4",
    "cifs",
    "smb",
    "smb3",
    "smbfs",
    "afpfs",
    "webdav",
    "davfs",
    "fuse",
    "9p",
    "ceph",
    "glusterfs",
    "lustre",
    "gpfs",
    "afs",
    "beegfs",
    "osxfuse",
    "macfuse",
)
"""File system types (or their prefix before a ``.``: ``fuse.sshfs``) treated as network."""


def _unescape(field: str) -> str:
    """Mount points in mountinfo write space, tab, newline and backslash as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def linux_type(path: Path, mountinfo: str) -> str | None:
    """The type of the file system holding ``path``, from the text of ``/proc/self/mountinfo``:
    the mount whose point is the longest prefix of the path (the last one mounted wins a tie)."""
    best: tuple[int, str] | None = None
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.split():
            continue
        point = Path(_unescape(fields[4]))
        if path == point or point in path.parents:
            depth = len(point.parts)
            if best is None or depth >= best[0]:
                best = (depth, right.split()[0])
    return best[1] if best else None


def _darwin_type(path: Path) -> str | None:
    """``statfs(2)``'s ``f_fstypename`` (macOS's 64-bit-inode struct, 2168 bytes)."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    buf = ctypes.create_string_buffer(2168)
    fn = getattr(libc, "statfs$INODE64", None) or libc.statfs
    if fn(str(path).encode(), buf) != 0:
        return None
    # u32 bsize, i32 iosize, 5 × u64 counts, fsid (2 × i32), u32 owner, type, flags, subtype
    offset = 4 + 4 + 5 * 8 + 8 + 4 * 4
    return buf.raw[offset : offset + 16].split(b"\0", 1)[0].decode(errors="replace") or None


def fs_type(path: Path) -> str | None:
    """The file system type of ``path``'s nearest existing folder, None when it cannot be told."""
    folder = Path(path).resolve()
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    try:
        if sys.platform.startswith("linux"):
            return linux_type(folder, Path("/proc/self/mountinfo").read_text(encoding="utf-8"))
        if sys.platform == "darwin":
            return _darwin_type(folder)
    except (OSError, ValueError, AttributeError):
        return None
    return None


def is_network(kind: str | None) -> bool:
    if not kind:
        return False
    head = kind.lower().split(".", 1)[0]
    return head in NETWORK or head.startswith(("nfs", "smb", "fuse"))


def network_fs(path: Path, env: Mapping[str, str] | None = None) -> str | None:
    """The network file system type holding ``path`` (``nfs4``, ``fuse.sshfs``…), else None."""
    env = os.environ if env is None else env
    forced = env.get(FS_VAR, "").strip().lower()
    if forced == "network":
        return f"network ({FS_VAR})"
    if forced == "local":
        return None
    kind = fs_type(path)
    return kind if is_network(kind) else None
