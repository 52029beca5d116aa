"""The project snapshot around a tool call: what any tool created, changed or removed, with its
content before, within limits that are named, never applied silently."""

from __future__ import annotations

import os
from pathlib import Path

from jupyter_agent.checkpoint.files import Limits, ProjectSnapshots


def _project(root: Path) -> None:
    (root / "data").mkdir()
    (root / "data" / "data.txt").write_text("alpha\nbeta\n")
    (root / "keep.txt").write_bytes(b"\x00binary\xff")
    (root / "notes.md").write_text("# notes\n")
    for skipped in (".git", ".jupyter-agent", "node_modules", "__pycache__"):
        (root / skipped).mkdir()
        (root / skipped / "x.txt").write_text("not watched")
    (root / "env").mkdir()
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "env" / "lib.py").write_text("a virtual environment")


def test_created_changed_removed_and_untouched(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    _project(root)
    snaps = ProjectSnapshots(root, tmp_path / "snapshots")
    before = snaps.track()
    assert set(before.files) == {"data/data.txt", "keep.txt", "notes.md"}  # no .git, store, caches, venv
    # what `sed -i`, `rm` and `df.to_csv` do: a new inode, a removal, a new file
    tmp = root / "data" / "data.txt.new"
    tmp.write_text("alpha\nBETA\n")
    os.replace(tmp, root / "data" / "data.txt")
    (root / "keep.txt").unlink()
    (root / "out.csv").write_text("a,b\n")
    after = snaps.track()
    changes = {Path(c.path).relative_to(root).as_posix(): c for c in snaps.changes(before, after)}
    assert set(changes) == {"data/data.txt", "keep.txt", "out.csv"}
    assert snaps.blobs.get(changes["data/data.txt"].before_blob or "") == b"alpha\nbeta\n"
    assert snaps.blobs.get(changes["keep.txt"].before_blob or "") == b"\x00binary\xff"
    assert changes["keep.txt"].existed and changes["keep.txt"].after_blob is None
    assert changes["out.csv"].existed is False and changes["out.csv"].before_blob is None


def test_limits_are_named(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "big.bin").write_bytes(b"x" * 2000)
    (root / "a.txt").write_text("a" * 600)
    (root / "b.txt").write_text("b" * 600)
    snaps = ProjectSnapshots(root, tmp_path / "s", Limits(max_file_bytes=1000, max_total_bytes=1000))
    before = snaps.track()
    assert "larger than" in (before.files["big.bin"].why or "")
    assert before.files["a.txt"].blob is not None  # smaller files first, until the total
    assert "in all (checkpoint.max_total_bytes)" in (before.files["b.txt"].why or "")
    (root / "big.bin").write_bytes(b"y" * 2000)
    change = snaps.changes(before, snaps.track())[0]
    assert change.path.endswith("big.bin") and change.before_blob is None
    assert "checkpoint.max_file_bytes" in (change.unsaved or "")


def test_file_limit_note_and_excludes(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "raw").mkdir(parents=True)
    for i in range(5):
        (root / f"f{i}.txt").write_text(str(i))
    (root / "raw" / "huge.csv").write_text("1,2\n")
    snaps = ProjectSnapshots(root, tmp_path / "s", Limits(max_files=3, exclude=("raw",)))
    snap = snaps.track()
    assert len(snap.files) == 3 and "raw/huge.csv" not in snap.files
    assert "more than 3 files" in snap.notes[0]


def test_a_new_process_reads_only_what_changed(tmp_path: Path, monkeypatch: object) -> None:
    root = tmp_path / "p"
    root.mkdir()
    for i in range(20):
        (root / f"f{i}.txt").write_text(f"content {i}")
    ProjectSnapshots(root, tmp_path / "s").track()
    (root / "f3.txt").write_text("changed")
    reads: list[Path] = []
    original = Path.read_bytes

    def spy(self: Path) -> bytes:
        reads.append(self)
        return original(self)

    import pytest

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Path, "read_bytes", spy)
        again = ProjectSnapshots(root, tmp_path / "s")  # a restarted kernel: the stat cache on disk
        snap = again.track()
    assert [p.name for p in reads] == ["f3.txt"]
    assert again.blobs.get(snap.files["f3.txt"].blob or "") == b"changed"
