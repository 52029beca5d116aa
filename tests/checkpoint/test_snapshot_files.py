"""The project snapshot around a tool call: what any tool created, changed or removed, with its
content before, within limits that are named, never applied silently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from jupyter_agent.agent.revert_files import keep_current, restore
from jupyter_agent.checkpoint.cells import keep_cell
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


def test_a_file_holding_a_secret_is_not_copied_and_revert_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `.env` with the API key the agent knows: its bytes never reach the session store; a
    revert of a change to it names the reason instead of restoring it."""
    key = "sk-acme-5f1c2e9a7b3d4c6e"
    monkeypatch.setenv("ACME_API_KEY", key)
    root = tmp_path / "p"
    root.mkdir()
    (root / ".env").write_text(f"ACME_API_KEY={key}\n")
    (root / "data.txt").write_text("plain\n")
    snaps = ProjectSnapshots(root, tmp_path / "s")
    before = snaps.track()
    assert before.files[".env"].blob is None and "holds a secret" in (before.files[".env"].why or "")
    assert before.files["data.txt"].blob is not None
    (root / ".env").write_text("ACME_API_KEY=rotated\n")
    (change,) = snaps.changes(before, snaps.track())
    snaps.save_cache()
    kept = [p.read_bytes() for p in (tmp_path / "s").rglob("*") if p.is_file()]
    assert kept and not any(key.encode() in data for data in kept)
    restored, removed, problems = restore({change.path: change}, snaps.blobs, root)
    assert restored == [] and removed == []
    assert len(problems) == 1 and "holds a secret" in problems[0] and ".env" in problems[0]
    assert (root / ".env").read_text() == "ACME_API_KEY=rotated\n"  # left as it is, not emptied
    assert key not in json.dumps(keep_current([str(root / ".env")], snaps.blobs, 10**6))
    (root / ".env").write_text(f"ACME_API_KEY={key}\n")
    assert "holds a secret" in json.dumps(keep_current([str(root / ".env")], snaps.blobs, 10**6))
    cell = {"cell_type": "code", "source": f"key = '{key}'", "metadata": {}, "outputs": []}
    assert keep_cell(snaps.blobs, cell) is None
