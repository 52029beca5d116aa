"""Project configuration is applied only once you trusted it (the direnv / workspace-trust model).

A ``jupyter-agent.json`` sets the agent's rules, its sandbox, its model endpoint and the
MCP servers it starts: a file a command left behind (bash, python, ``git checkout``, a run
killed in the middle) must not become the next session's rules. So the decision is made
where the file is read, however it appeared: the content hash of each project file you
trusted is recorded in the user data folder (``trust.json``; hidden from commands, so no
command can vouch for itself), and a file that is new or changed since is not applied. The
notebook and the side panel show what it would change, with Trust / Ignore; a headless run
refuses in one line naming ``jupyter-agent trust PATH``. A file you write yourself is
trusted the same way, once.

Pre-trusted without asking: files under the admin's ``trusted`` paths
(``/etc/jupyter-agent/config.json``) and under folders you trusted as a whole
(``jupyter-agent trust --folder``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from jupyter_agent.core.user_dirs import user_data_dir

TRUST_FILE = "trust.json"
Decision = Literal["trust", "ignore"]


class TrustEntry(BaseModel):
    sha256: str
    decision: Decision
    at: int = 0
    """When it was decided (ms since the epoch)."""


class TrustRecords(BaseModel):
    """``trust.json``: what you decided about each configuration file, by its content."""

    version: Literal[1] = 1
    files: dict[str, TrustEntry] = Field(default_factory=dict)
    folders: list[str] = Field(default_factory=list)
    """Every configuration file under these folders is trusted (``jupyter-agent trust --folder``)."""


def store_path(env: Mapping[str, str] | None = None) -> Path:
    return user_data_dir(os.environ if env is None else env) / TRUST_FILE


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def load(env: Mapping[str, str] | None = None) -> TrustRecords:
    """The records (none when the file is missing or unreadable: nothing is trusted then)."""
    try:
        return TrustRecords.model_validate_json(store_path(env).read_bytes())
    except (OSError, ValidationError, ValueError):
        return TrustRecords()


def _under(path: Path, pattern: str) -> bool:
    """``path`` is ``pattern`` (a glob) or lies in the folder it names."""
    folder = os.path.expanduser(pattern).rstrip("/") or "/"
    return fnmatchcase(str(path), folder) or fnmatchcase(str(path), f"{folder}/*")


def decided(
    path: Path, sha256: str, records: TrustRecords, admin_trusted: Iterable[str] = ()
) -> Decision | None:
    """What was decided about this content at this path (None: new or changed since)."""
    if any(_under(path, p) for p in admin_trusted) or any(_under(path, f) for f in records.folders):
        return "trust"
    entry = records.files.get(str(path))
    return entry.decision if entry is not None and entry.sha256 == sha256 else None


class Unreadable(Exception):
    """A project file that cannot be read to hash it.

    Never reaches a front end: reading the configuration turns it into a ``ConfigError``
    (``config.py``)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def split(
    files: Iterable[Path], admin_trusted: Iterable[str] = (), env: Mapping[str, str] | None = None
) -> tuple[tuple[Path, bytes] | None, list[tuple[Path, bytes]]]:
    """Of the project files (nearest first): the nearest one trusted, with the content that
    was hashed (the same bytes are parsed), and the nearer ones that are new or changed
    since (not applied). One the user chose to ignore is passed over quietly."""
    records = load(env)
    pending: list[tuple[Path, bytes]] = []
    for path in files:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise Unreadable(path, exc.strerror or str(exc)) from None
        decision = decided(path, digest(raw), records, admin_trusted)
        if decision == "trust":
            return (path, raw), pending
        if decision is None:
            pending.append((path, raw))
    return None, pending


@contextlib.contextmanager
def _locked(env: Mapping[str, str] | None) -> Iterator[TrustRecords]:
    """The records for a change, written back whole (two kernels deciding at once both count)."""
    path = store_path(env)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        records = load(env)
        yield records
        tmp = path.with_name(f".{TRUST_FILE}.{os.getpid()}")
        tmp.write_text(records.model_dump_json(indent=1), encoding="utf-8")
        os.replace(tmp, path)


def record(path: Path, sha256: str, decision: Decision, env: Mapping[str, str] | None = None) -> None:
    """Remember ``decision`` for this content of ``path``."""
    with _locked(env) as records:
        records.files[str(path)] = TrustEntry(sha256=sha256, decision=decision, at=int(time.time() * 1000))


def forget(path: Path, env: Mapping[str, str] | None = None) -> bool:
    """Forget what was decided about ``path`` (and a folder trusted as a whole at it)."""
    with _locked(env) as records:
        found = records.files.pop(str(path), None) is not None
        if str(path) in records.folders:
            records.folders.remove(str(path))
            found = True
    return found


def trust_folder(folder: Path, env: Mapping[str, str] | None = None) -> None:
    with _locked(env) as records:
        if str(folder) not in records.folders:
            records.folders.append(str(folder))


@dataclass(frozen=True)
class Pending:
    """A configuration file that is new or changed since it was trusted: not applied."""

    path: Path
    sha256: str
    changes: tuple[str, ...]
    """What applying it would do, in words ("switch the sandbox off", "allow bash")."""
    error: str | None = None
    """Why it could not be applied even if trusted (invalid JSON, an unknown key)."""

    def what(self) -> str:
        if self.error:
            return f"is not valid ({self.error})"
        if not self.changes:
            return "would change nothing"
        head = ", ".join(self.changes[:-1])
        return "would " + (f"{head} and {self.changes[-1]}" if head else self.changes[-1])

    def title(self) -> str:
        """What the notebook's and the panel's Trust / Ignore box says."""
        return f"{self.path} is new or changed since you last trusted it; it {self.what()}."

    def refusal(self) -> str:
        """The one line a run that cannot ask stops with."""
        return (
            f"{self.path} is not trusted (new or changed since you last trusted it) and {self.what()}; "
            "it was not applied and nothing ran. If you wrote it, run "
            f"`jupyter-agent trust {self.path}` "
            f"(or `jupyter-agent trust --ignore {self.path}` to run without it)."
        )
