"""Git's own folders inside the sandbox: a private copy whose safe parts are the real ones.

A command may record work in a repository (objects, refs, logs, the index, HEAD) but must
never change what decides which commands git runs later, outside the sandbox: ``config``,
``hooks/``, ``info/``, ``commondir``, ``gitdir``, in the project's git folder and in those
of its submodules (``.git/modules/…``) and linked worktrees (``.git/worktrees/…``), also
in ones the command creates. git rewrites its files by renaming a lock over them, so the
folder itself must be writable; a read-only mount cannot keep a new ``commondir`` out.

So each such git folder is covered by a private staging folder. Inside it ``objects/``,
``refs/`` and ``logs/`` are the real ones (writable); ``config``, ``hooks/``, ``info/`` and
every other file and folder are the real ones, read-only; the files git replaces whole
(``HEAD``, ``index``, ``packed-refs``, ``ORIG_HEAD`` …, :data:`COPIED`) are copies. When
the command ends, a copy it changed is written back if nobody changed the real file
meanwhile; anything else it made there (a ``commondir``, a submodule's new git folder from
``git submodule add``) is dropped and the command's output says so. An index that registers
a submodule the real one does not have is not written back either: ``git status`` runs git
inside each submodule, and a ``sub/.git`` the command planted could name any git folder,
with its config. A run killed mid-command writes nothing back: the real folder only ever
got objects, refs and logs.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.core.processes import pid_alive
from jupyter_agent.tools.bwrap import system_program

WRITABLE = frozenset({"objects", "refs", "logs", "lfs", "rr-cache"})
"""Folders git records work in: the real ones, writable."""
NESTED = ("modules", "worktrees")
"""Folders holding other git folders (submodules, linked worktrees), each staged the same way."""
COPIED = frozenset(
    (  # noqa: SIM905 - two dozen names read better as words than one per line
        "HEAD ORIG_HEAD FETCH_HEAD MERGE_HEAD MERGE_MSG MERGE_MODE MERGE_AUTOSTASH AUTO_MERGE "
        "CHERRY_PICK_HEAD REVERT_HEAD COMMIT_EDITMSG SQUASH_MSG TAG_EDITMSG index packed-refs shallow "
        "BISECT_LOG BISECT_START BISECT_TERMS BISECT_NAMES BISECT_EXPECTED_REV BISECT_ANCESTORS_OK "
        "BISECT_HEAD BISECT_FIRST_PARENT"
    ).split()
)
"""Files git replaces whole and that name no program: copied in, written back when changed."""
QUIET = ("gc.pid", "gc.log")
"""What git leaves in its folder for itself (``git gc``): dropped without a word."""
NEEDS_MORE = "git's own folders are read-only to commands: run it yourself (docs/security.md)"


def copied(name: str) -> bool:
    return name in COPIED or name.startswith("sharedindex.")


def is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and ((path / "objects").is_dir() or (path / "commondir").is_file())


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _read(folder: Path, name: str) -> bytes | None:
    """A regular file's bytes, never through a link (None: missing, a link, not a file)."""
    try:
        fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read()


@dataclass
class StagedGit:
    """One git folder covered by its staging folder for one command."""

    real: Path
    stage: Path
    mounts: list[tuple[str, str]] = field(default_factory=list)
    """(bwrap flag, name) mounted from the real folder over the stage."""
    copies: dict[str, tuple[str, int]] = field(default_factory=dict)
    """Files copied in: name → (sha256, mode)."""
    nested: set[str] = field(default_factory=set)
    """Paths (``modules/sub``) of folders inside this one that are mount points or staged."""
    seen: dict[str, tuple[object, object]] = field(default_factory=dict)
    """What ``sync`` last saw of each copied file, inside and outside (unchanged: not read)."""

    def args(self) -> list[str]:
        out = ["--bind", str(self.stage), str(self.real)]
        for flag, name in self.mounts:
            out += [flag, str(self.real / name), str(self.real / name)]
        return out

    def finish(self) -> list[str]:
        """Write back what the command changed in the copies; one line per thing dropped."""
        notes: list[str] = []
        for name in sorted({*self.copies, *_names(self.stage)}):
            if not copied(name):
                continue
            note = self._write_back(name)
            if note:
                notes.append(note)
        for name in sorted(_names(self.stage) - {n for _, n in self.mounts} - set(self.copies)):
            if not copied(name) and not name.endswith(".lock") and name not in (*NESTED, *QUIET):
                notes.append(f"{self.real / name} was made by the command and not kept ({NEEDS_MORE}).")
        for kind in NESTED:
            for made in _new_git_dirs(self.stage / kind, self.nested, kind):
                notes.append(
                    f"git made {self.real / made} inside the sandbox; it was not kept ({NEEDS_MORE})."
                )
        return notes

    def sync(self) -> list[str]:
        """For a sandbox that lives long (a contained kernel), every second or so: a copy the
        process changed is written back as at the end of a command, a real file changed
        outside is taken in, and a file git holds locked (``<name>.lock``) waits; when both
        changed, the real one wins and the line says so."""
        notes: list[str] = []
        for name in sorted(n for n in {*self.copies, *_names(self.stage), *_names(self.real)} if copied(n)):
            stamp = (_stat(self.stage / name), _stat(self.real / name))
            if self.seen.get(name) == stamp or any(
                os.path.lexists(folder / f"{name}.lock") for folder in (self.stage, self.real)
            ):
                continue
            before, mode = self.copies.get(name, (None, 0o644))
            inside, outside = _read(self.stage, name), _read(self.real, name)
            if _digest(inside) != before and _digest(outside) == before:
                note = self._write_back(name)
                if note is None:
                    self.copies[name] = (_digest(inside) or "", mode)
                else:
                    notes.append(note)
            elif _digest(outside) != before:
                if _digest(inside) != before:
                    notes.append(f"{self.real / name} changed outside too; the change inside was not kept.")
                with contextlib.suppress(OSError):
                    _replace(self.stage, name, outside, mode)
                    self.copies[name] = (_digest(outside) or "", mode)
            self.seen[name] = (_stat(self.stage / name), _stat(self.real / name))
        return notes

    def _write_back(self, name: str) -> str | None:
        data = _read(self.stage, name)
        before, mode = self.copies.get(name, (None, 0o644))
        if _digest(data) == before:
            return None
        added = _new_submodules(self.real, self.stage / name) if name == "index" and data else set()
        if added:
            return (
                f"the command registered {', '.join(sorted(added))} as a submodule in {self.real}; "
                f"its change to git's index was not kept (add submodules yourself: {NEEDS_MORE})."
            )
        if _digest(_read(self.real, name)) != before:
            return (
                f"{self.real / name} changed outside while the command ran; "
                "the command's change to it was not kept."
            )
        try:
            _replace(self.real, name, data, mode)
        except OSError as exc:
            return f"{self.real / name}: the command's change could not be written back ({exc})."
        return None


def _gitlinks(gitdir: Path, index: Path) -> set[str] | None:
    """The submodule paths an index names (None: it cannot be read). The system's git reads
    it, never one on PATH, with nothing of the repository's config that runs a program."""
    git = system_program("git")
    if git is None or not index.is_file():
        return None if git is None else set()
    env = {"GIT_INDEX_FILE": str(index), "PATH": "/usr/bin:/bin", "HOME": str(gitdir), "LC_ALL": "C"}
    argv = [git, f"--git-dir={gitdir}", "-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"]
    try:
        done = subprocess.run(argv, env=env, capture_output=True, timeout=60, check=False, cwd=gitdir)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    entries = done.stdout.decode("utf-8", "replace").split("\0")
    return {e.split("\t", 1)[1] for e in entries if e.startswith("160000 ") and "\t" in e}


_registered: dict[Path, tuple[tuple[int, int, int], list[str]]] = {}


def submodule_paths(gitdir: Path) -> list[str]:
    """The submodules the repository's index registers: ``git status`` enters each one
    whose folder holds a ``.git``, and runs what that git folder's config names (read again
    only when the index changed)."""
    try:
        st = (gitdir / "index").stat()
    except OSError:
        return []
    stamp = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = _registered.get(gitdir)
    if cached is None or cached[0] != stamp:
        cached = _registered[gitdir] = (stamp, sorted(_gitlinks(gitdir, gitdir / "index") or ()))
    return cached[1]


def _new_submodules(gitdir: Path, staged_index: Path) -> set[str]:
    """Submodules the staged index registers that the real one does not (an index that
    cannot be read counts as registering one: it is not written back)."""
    after = _gitlinks(gitdir, staged_index)
    before = _gitlinks(gitdir, gitdir / "index")
    if after is None or before is None:
        return {"(an index git could not read)"}
    return after - before


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _names(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _new_git_dirs(folder: Path, known: set[str], prefix: str) -> list[str]:
    """Git folders under ``folder`` (``stage/modules``) that were not there before."""
    found: list[str] = []
    for name in sorted(_names(folder)):
        path, rel = folder / name, f"{prefix}/{name}"
        if rel in known or path.is_symlink() or not path.is_dir():
            continue
        if (path / "HEAD").exists() or prefix.startswith("worktrees"):
            found.append(rel)
        else:
            found += _new_git_dirs(path, known, rel)
    return found


def _replace(folder: Path, name: str, data: bytes | None, mode: int) -> None:
    """Write ``name`` in ``folder`` whole (a temporary file renamed over it), or remove it."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        if data is None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=fd)
            return
        tmp = f".{name}.jupyter-agent-{os.getpid()}"
        out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode, dir_fd=fd)
        with os.fdopen(out, "wb") as fh:
            fh.write(data)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)


_count = itertools.count(1)


def stage_root(base: Path) -> Path:
    """A fresh folder for one command's stages under ``base``; stages of processes that
    are gone (killed mid-command) are removed."""
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    for old in base.iterdir():
        pid = old.name.split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not pid_alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    root = base / f"{os.getpid()}-{next(_count)}"
    root.mkdir(mode=0o700)
    return root


def stage(real: Path, root: Path) -> list[StagedGit]:
    """Stage ``real`` and the git folders nested in it, outermost first."""
    out: list[StagedGit] = []
    pending = [real]
    while pending:
        folder = pending.pop(0)
        staged = StagedGit(folder, root / str(len(out)))
        staged.stage.mkdir(mode=0o700)
        pending += _fill(staged)
        out.append(staged)
    return out


def _fill(staged: StagedGit) -> list[Path]:
    """Copy and mount the top of one git folder into its stage; the nested git folders."""
    nested: list[Path] = []
    for entry in sorted(os.scandir(staged.real), key=lambda e: e.name):
        name = entry.name
        if entry.is_dir(follow_symlinks=False) and name in WRITABLE:
            staged.mounts.append(("--bind", name))
        elif entry.is_dir(follow_symlinks=False) and name in NESTED:
            nested += _skeleton(staged, Path(name))
        elif entry.is_file(follow_symlinks=False) and copied(name):
            data = _read(staged.real, name)
            if data is not None:
                (staged.stage / name).write_bytes(data)
                mode = stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode)
                staged.copies[name] = (_digest(data) or "", mode)
        elif (
            entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False) or entry.is_symlink()
        ):
            staged.mounts.append(("--ro-bind-try", name))  # config, hooks, info, commondir …
    return nested


def _skeleton(staged: StagedGit, rel: Path) -> list[Path]:
    """Recreate ``modules/…`` in the stage down to each nested git folder (a mount point)."""
    (staged.stage / rel).mkdir(exist_ok=True)
    staged.nested.add(rel.as_posix())
    found: list[Path] = []
    for entry in sorted(os.scandir(staged.real / rel), key=lambda e: e.name):
        path = staged.real / rel / entry.name
        if not entry.is_dir(follow_symlinks=False):
            staged.mounts.append(("--ro-bind-try", (rel / entry.name).as_posix()))
        elif rel.parts[0] == "worktrees" or is_git_dir(path):
            (staged.stage / rel / entry.name).mkdir()
            staged.nested.add((rel / entry.name).as_posix())
            found.append(path)
        else:  # a submodule named with slashes (lib/x)
            found += _skeleton(staged, rel / entry.name)
    return found
