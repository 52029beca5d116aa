"""Which folder holds a notebook folder's store: next to it, a configured one, or the user's.

By default sessions live in ``<notebook dir>/.jupyter-agent/`` and travel with the folder.
``store`` (or ``JUPYTER_AGENT_STORE``) names one folder for every notebook instead: each
notebook folder gets its own sub-folder there, keyed by its path. When the notebook's
folder cannot be written (a read-only dataset checkout, a course's shared notebooks) the
store goes to the user's data folder, keyed the same way, and the user is told once; a
store already kept there is used again even once the folder became writable, so sessions
never seem to vanish. ``candidates`` lists every place a folder's sessions may be.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from jupyter_agent.core.user_dirs import user_data_dir
from jupyter_agent.storage.paths import DB_NAME, DIRNAME, prepare

STORE_VAR = "JUPYTER_AGENT_STORE"
STORES = "stores"
"""The sub-folder of the user's data folder that holds the stores of read-only folders."""
FOLDER_FILE = "notebook-folder.txt"
"""Written into a keyed store: which notebook folder it belongs to (for an admin's eyes)."""


@dataclass(frozen=True)
class StoreLocation:
    """Where one notebook folder's store is, and what the user should be told about it."""

    folder: Path
    """The store folder (``sessions.db``, ``tool-output/``)."""
    base: Path | None = None
    """The folder holding every keyed store (configured or the user's), None when local."""
    notice: str | None = None

    @property
    def db(self) -> Path:
        return self.folder / DB_NAME


def fallback_base(env: Mapping[str, str] | None = None) -> Path:
    return user_data_dir(env) / STORES


def key(notebook_dir: Path) -> str:
    """A folder name for ``notebook_dir``: its last two names (readable) and a hash of the
    whole path (unique), e.g. ``course-week1-3f2a9c01b7d4``."""
    resolved = str(Path(notebook_dir).resolve())
    tail = "-".join(Path(resolved).parts[-2:]).strip("/") or "root"
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", tail).strip("._-")[:48] or "root"
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogateescape")).hexdigest()[:12]
    return f"{readable}-{digest}"


def configured(store: str | None) -> Path | None:
    """The ``store`` setting as an absolute folder (``~`` expanded), or None."""
    if not store or not store.strip():
        return None
    return Path(os.path.expanduser(store.strip()))


def can_write(folder: Path) -> bool:
    """Whether the store can live next to the notebooks: its ``.jupyter-agent/`` (and the
    database there) can be written, or, when it cannot, the notebook folder itself can (a
    store someone made read-only in a writable folder is reported, not silently moved)."""
    local = folder / DIRNAME
    db = local / DB_NAME
    if local.is_dir() and os.access(local, os.W_OK | os.X_OK) and (not db.exists() or os.access(db, os.W_OK)):
        return True
    target = folder
    while not target.exists() and target.parent != target:  # made on first use, as its parents
        target = target.parent
    return os.access(target, os.W_OK | os.X_OK)


def locate(
    notebook_dir: Path,
    store: str | None = None,
    env: Mapping[str, str] | None = None,
    writable: Callable[[Path], bool] = can_write,
) -> StoreLocation:
    """Where the store of ``notebook_dir`` is (nothing is created here).

    ``store`` (the setting) wins; else ``.jupyter-agent/`` next to the notebooks when it
    can be written; else the user's data folder (``writable`` is the check, for tests)."""
    folder = Path(notebook_dir).resolve()
    base = configured(store)
    if base is not None:
        return StoreLocation(base / key(folder), base)
    local = folder / DIRNAME
    fallback = fallback_base(env)
    kept = fallback / key(folder)
    if (kept / DB_NAME).exists() and not (local / DB_NAME).exists():
        return StoreLocation(kept, fallback)  # moved there before: its sessions stay found
    if writable(folder):
        return StoreLocation(local)
    return StoreLocation(
        kept,
        fallback,
        notice=(
            f"{folder} cannot be written, so this folder's sessions are kept in {kept} "
            f"(set `store` or {STORE_VAR} to choose another folder)."
        ),
    )


def candidates(
    notebook_dir: Path, store: str | None = None, env: Mapping[str, str] | None = None
) -> list[Path]:
    """Every store folder that may hold sessions of ``notebook_dir``, the one in use first
    (``jupyter-agent sessions`` looks in all that exist)."""
    folder = Path(notebook_dir).resolve()
    places = [locate(folder, store, env).folder, folder / DIRNAME, fallback_base(env) / key(folder)]
    base = configured(store)
    if base is not None:
        places.append(base / key(folder))
    return list(dict.fromkeys(places))


def create(location: StoreLocation, notebook_dir: Path) -> Path:
    """Make the store folder (with its ``.gitignore``; a keyed one names its notebook folder)."""
    prepare(location.folder)
    if location.base is not None:
        note = location.folder / FOLDER_FILE
        if not note.exists():
            note.write_text(f"{Path(notebook_dir).resolve()}\n", encoding="utf-8")
    return location.folder
