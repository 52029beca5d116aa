"""The project's files before and after each tool call, so revert restores what any tool changed.

``track`` walks the project (leaving out version-control folders, the session store, caches
and virtual environments) and keeps the content of every file whose size or time changed
since the last walk in a :class:`BlobStore`; an unchanged file costs one ``stat``. ``changes``
compares two walks: the files a ``bash`` ``sed -i``, a ``python`` ``to_csv`` or an MCP tool
created, changed or removed, each with the content it had before. Unlike the user's own git
repository (which this never touches) it also sees untracked and ignored files; its limits
(per file, in all, files looked at) are named in what it returns, never applied silently.
"""

from __future__ import annotations

import atexit
import fnmatch
import json
import os
import stat as stat_mod
import tempfile
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.checkpoint.blobs import BlobStore, HoldsSecret
from jupyter_agent.core.messages import FileChange
from jupyter_agent.core.redaction import secret_bytes

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".jupyter-agent",
        ".ipynb_checkpoints",
        "__pycache__",
        "node_modules",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        ".cache",
    }
)
"""Folders never snapshotted: version control, the session store, caches, environments."""


_open: weakref.WeakSet[ProjectSnapshots] = weakref.WeakSet()


@atexit.register
def _save_all() -> None:
    for snapshots in list(_open):
        snapshots.save_cache()


SAVE_EVERY_S = 30.0
"""The stat cache only saves the next process from reading every file again: written now
and then, not on every walk (a 1,000-file index costs more to write than the walk itself)."""


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 10 * 1024 * 1024
    max_total_bytes: int = 1024 * 1024 * 1024
    max_files: int = 20_000
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """One file as a walk saw it: its ``stat`` and its kept content (or why there is none)."""

    size: int
    mtime_ns: int
    ino: int
    ctime_ns: int
    blob: str | None = None
    why: str | None = None

    def same_stat(self, other: Entry) -> bool:
        return (self.size, self.mtime_ns, self.ino, self.ctime_ns) == (
            other.size,
            other.mtime_ns,
            other.ino,
            other.ctime_ns,
        )


@dataclass
class Snapshot:
    """The project's files at one moment (relative POSIX path → entry)."""

    files: dict[str, Entry] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """What this walk could not cover (the file limit was reached)."""


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB"


class ProjectSnapshots:
    """Walks ``root`` and keeps file contents in ``folder`` (``blobs/`` and the stat cache)."""

    def __init__(self, root: Path, folder: Path, limits: Limits | None = None) -> None:
        self.root = root.resolve()
        self.folder = folder
        self.blobs = BlobStore(folder / "blobs")
        self.limits = limits or Limits()
        self._index_path = folder / "index.json"
        self._cache: dict[str, Entry] | None = None
        self._dirty = False
        self._saved_at = -SAVE_EVERY_S
        _open.add(self)

    # ------------------------------------------------------------ walking

    def _walk(self) -> tuple[list[tuple[str, os.stat_result]], bool]:
        """Regular files under the root (no symlinks), and whether the file limit cut the walk."""
        found: list[tuple[str, os.stat_result]] = []
        exclude = self.limits.exclude
        stack = [(str(self.root), "")]
        while stack:
            folder, rel = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name)
            except OSError:
                continue
            subdirs = []
            for entry in entries:
                name = entry.name
                path = f"{rel}{name}"
                if exclude and any(fnmatch.fnmatch(path, g) or fnmatch.fnmatch(name, g) for g in exclude):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if name not in SKIP_DIRS and not os.path.exists(
                            os.path.join(entry.path, "pyvenv.cfg")
                        ):
                            subdirs.append((entry.path, path + "/"))
                        continue
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat_mod.S_ISREG(info.st_mode):
                    if len(found) >= self.limits.max_files:
                        return found, True
                    found.append((path, info))
            stack.extend(reversed(subdirs))
        return found, False

    def track(self) -> Snapshot:
        """The project now; contents of files new or changed since the last walk are kept."""
        cache = self._load_cache()
        walked, cut = self._walk()
        limits = self.limits
        order = sorted(walked, key=lambda item: item[1].st_size)  # small files first within the budget
        total = 0
        files: dict[str, Entry] = {}
        changed = False
        secrets = secret_bytes()
        for rel, info in order:
            cached = cache.get(rel)
            fits = info.st_size <= limits.max_file_bytes and total + info.st_size <= limits.max_total_bytes
            if fits:
                total += info.st_size
            if (
                cached is not None
                and (cached.size, cached.mtime_ns, cached.ino, cached.ctime_ns)
                == (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
                and (cached.blob is not None or not fits)
            ):
                files[rel] = cached
                continue
            seen = Entry(info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)
            files[rel] = self._entry(rel, seen, fits, secrets)
            changed = True
        if changed or len(files) != len(cache):
            self._cache = files
            self._dirty = True
        if self._dirty and time.monotonic() - self._saved_at > SAVE_EVERY_S:
            self.save_cache()
        notes = []
        if cut:
            notes.append(
                f"the project has more than {limits.max_files:,} files: the checkpoint watched the first "
                f"{limits.max_files:,} (checkpoint.max_files)"
            )
        return Snapshot(files, notes)

    def _entry(self, rel: str, seen: Entry, fits: bool, secrets: list[bytes]) -> Entry:
        limits = self.limits
        if not fits:
            why = (
                f"larger than {_mib(limits.max_file_bytes)} (checkpoint.max_file_bytes)"
                if seen.size > limits.max_file_bytes
                else f"past the snapshot's {_mib(limits.max_total_bytes)} in all (checkpoint.max_total_bytes)"
            )
            return Entry(seen.size, seen.mtime_ns, seen.ino, seen.ctime_ns, None, why)
        try:
            data = (self.root / rel).read_bytes()
        except OSError as exc:
            return Entry(
                seen.size, seen.mtime_ns, seen.ino, seen.ctime_ns, None, f"unreadable ({exc.strerror})"
            )
        try:
            blob = self.blobs.put(data, secrets)
        except HoldsSecret as exc:
            return Entry(seen.size, seen.mtime_ns, seen.ino, seen.ctime_ns, None, str(exc))
        return Entry(seen.size, seen.mtime_ns, seen.ino, seen.ctime_ns, blob)

    # ------------------------------------------------------------ comparing

    def changes(self, before: Snapshot, after: Snapshot) -> list[FileChange]:
        """The files created, changed or removed between two walks, each with its content before."""
        out: list[FileChange] = []
        for rel in sorted(before.files.keys() | after.files.keys()):
            old, new = before.files.get(rel), after.files.get(rel)
            if old is not None and new is not None:
                if old.blob is not None and new.blob is not None:
                    if old.blob == new.blob:
                        continue
                elif old.same_stat(new):
                    continue
            path = str(self.root / rel)
            out.append(
                FileChange(
                    path=path,
                    before=None,
                    existed=old is not None,
                    before_blob=old.blob if old is not None else None,
                    after_blob=new.blob if new is not None else None,
                    unsaved=old.why if old is not None and old.blob is None else None,
                )
            )
        return out

    # ------------------------------------------------------------ the stat cache

    def _load_cache(self) -> dict[str, Entry]:
        """What the last walk saw (read from disk once per process: a new kernel re-reads
        only the files changed since)."""
        if self._cache is None:
            try:
                raw = json.loads(self._index_path.read_text(encoding="utf-8"))
                self._cache = {rel: Entry(*values) for rel, values in raw.items()}
            except (OSError, ValueError, TypeError):
                self._cache = {}
        return self._cache

    def save_cache(self) -> None:
        """Write the stat cache (a step writes it at most every ``SAVE_EVERY_S``; exit writes the rest)."""
        if not self._dirty:
            return
        self._dirty, self._saved_at = False, time.monotonic()
        data = {
            rel: [e.size, e.mtime_ns, e.ino, e.ctime_ns, e.blob, e.why]
            for rel, e in (self._cache or {}).items()
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".index-")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh, separators=(",", ":"))
            os.replace(tmp, self._index_path)
        except OSError:
            pass  # the cache only saves time: the next walk reads the files again
