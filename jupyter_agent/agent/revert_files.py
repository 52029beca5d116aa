"""The file side of a revert: which content each file goes back to, and writing it.

A path touched several times after the revert point goes back to what it was before the
first touch. The content comes from the snapshot store (checkpoints) or, for sessions
recorded before checkpoints and for files outside the project, from the tool's own record.
"""

from __future__ import annotations

import base64
from pathlib import Path

from jupyter_agent.checkpoint.blobs import BlobStore, HoldsSecret
from jupyter_agent.core.messages import FileChange, PatchPart


def first_changes(patches: list[PatchPart]) -> dict[str, FileChange]:
    """Each path's earliest change (patches oldest first): what it was before the agent."""
    found: dict[str, FileChange] = {}
    for patch in patches:
        for change in patch.files:
            found.setdefault(change.path, change)
    return found


def shown(path: str, root: Path) -> str:
    """A path as the user reads it: relative to the project when inside it."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return path


def content_before(change: FileChange, blobs: BlobStore | None) -> tuple[bytes | None, str | None]:
    """(content, None), (None, None) when the file did not exist, or (None, why not)."""
    if change.before_blob is not None:
        data = blobs.get(change.before_blob) if blobs is not None else None
        if data is None:
            return None, "its content before the change is no longer stored (.jupyter-agent/snapshots)"
        return data, None
    if change.unsaved:
        return None, f"its content before the change was not kept: {change.unsaved}"
    if change.before is None:
        return None, None
    if change.binary:
        return base64.b64decode(change.before), None
    return change.before.encode("utf-8"), None


def restore(
    changes: dict[str, FileChange], blobs: BlobStore | None, root: Path
) -> tuple[list[str], list[str], list[str]]:
    """Put each file back; returns (restored, removed, problems) as the user reads them."""
    restored: list[str] = []
    removed: list[str] = []
    problems: list[str] = []
    for path, change in changes.items():
        name = shown(path, root)
        data, why = content_before(change, blobs)
        target = Path(path)
        try:
            if why is not None:
                problems.append(f"{name}: {why}")
            elif data is None:
                if target.exists() or target.is_symlink():
                    target.unlink()
                    removed.append(name)
            else:
                if target.is_file() and target.read_bytes() == data:
                    restored.append(name)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                restored.append(name)
        except OSError as exc:
            problems.append(f"{name}: {exc.strerror or exc}")
    return restored, removed, problems


def _size(n: int) -> str:
    """``400 bytes``, ``4.9 KiB``, ``50.0 MiB``."""
    if n < 1024:
        return f"{n:,} bytes"
    return f"{n / 1024:,.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MiB"


def keep_current(paths: list[str], blobs: BlobStore, max_bytes: int) -> dict[str, object]:
    """Each file's content now (blob key; None when absent), so an unrevert can put it back; a
    file over ``max_bytes`` is not read (``{"unsaved": why}``: the unrevert names it)."""
    kept: dict[str, object] = {}
    for path in paths:
        try:
            size = Path(path).stat().st_size
            if size > max_bytes:
                why = (
                    f"{size / 1024 / 1024:,.0f} MiB, over checkpoint.max_file_bytes: not kept for an unrevert"
                )
                kept[path] = {"unsaved": why}
                continue
            kept[path] = blobs.put(Path(path).read_bytes())
        except HoldsSecret as exc:
            kept[path] = {"unsaved": f"not kept for an unrevert: {exc}"}
        except (FileNotFoundError, IsADirectoryError):
            kept[path] = None
    return kept


def put_back(
    kept: dict[str, object], blobs: BlobStore | None, root: Path
) -> tuple[list[str], list[str], list[str]]:
    """Unrevert: write what ``keep_current`` kept (or a snapshot from before checkpoints:
    ``{"content": …, "binary": …}``); returns (restored, removed, problems)."""
    changes: dict[str, FileChange] = {}
    for path, saved in kept.items():
        if isinstance(saved, dict) and "unsaved" in saved:
            changes[path] = FileChange(path=path, before=None, unsaved=str(saved["unsaved"]))
        elif isinstance(saved, dict):  # a revert recorded by an older version
            content = saved.get("content")
            changes[path] = FileChange(path=path, before=content, binary=bool(saved.get("binary")))
        else:
            changes[path] = FileChange(
                path=path, before=None, before_blob=saved if isinstance(saved, str) else None
            )
    return restore(changes, blobs, root)
