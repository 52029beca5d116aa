"""A content-addressed folder of bytes: file contents and cells a checkpoint keeps.

Kept under the session store (``.jupyter-agent/snapshots/blobs``), which ``bash`` cannot
write and the file tools ask before touching: what the agent changed cannot be used to
change what revert restores. Each blob is written once, atomically; equal contents share one.
Bytes that hold a secret the agent knows (an API key, a token: ``core/redaction.py``) are
never written: the store is where sessions, exports and audits are read from, and a key must
not outlive the file it was in there. The file then cannot be restored, and revert says why.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from jupyter_agent.core.redaction import bytes_hold_secret

HOLDS_SECRET = "it holds a secret (an API key or token), which is never copied into the session store"


class HoldsSecret(ValueError):
    """The bytes hold a secret value: not kept (``HOLDS_SECRET`` says so to the user).

    Never reaches a front end: the checkpoint and revert code catch it and put its text in the
    revert's report (``checkpoint/files.py``, ``checkpoint/cells.py``, ``agent/revert_files.py``)."""


class BlobStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        if len(key) < 8 or not key.isalnum():
            raise ValueError(f"not a blob key: {key!r}")
        return self.folder / key[:2] / key[2:]

    @staticmethod
    def key(data: bytes) -> str:
        return hashlib.blake2b(data, digest_size=20).hexdigest()

    def put(self, data: bytes, secrets: list[bytes] | None = None) -> str:
        """Keep ``data``; returns its key (the same bytes give the same key, stored once).
        Raises :class:`HoldsSecret` for bytes holding a secret (``secrets``: the values, when
        the caller puts many blobs at once: ``redaction.secret_bytes``)."""
        if bytes_hold_secret(data, secrets):
            raise HoldsSecret(HOLDS_SECRET)
        key = self.key(data)
        path = self._path(key)
        if path.exists():
            return key
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return key

    def get(self, key: str) -> bytes | None:
        """The bytes kept under ``key``; None when they are gone (the folder was cleared)."""
        try:
            return self._path(key).read_bytes()
        except (OSError, ValueError):
            return None
