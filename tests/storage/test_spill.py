"""Full tool outputs are saved and cleaned up after the retention period."""

from __future__ import annotations

import os
import time
from pathlib import Path

from jupyter_agent.storage.spill import cleanup, save_output


def _age(path: Path, days: float) -> None:
    stamp = time.time() - days * 86_400
    os.utime(path, (stamp, stamp))


def test_save_writes_sortable_files(tmp_path: Path) -> None:
    first = save_output(tmp_path, "first")
    second = save_output(tmp_path, "second ü\n" * 3)
    assert first.parent == tmp_path / "tool-output"
    assert first.name.startswith("tool_") and first.name < second.name
    assert second.read_text(encoding="utf-8") == "second ü\n" * 3
    assert save_output(tmp_path, "bad \udc80 byte").read_text(encoding="utf-8") == "bad ? byte"


def test_cleanup_removes_only_old_outputs(tmp_path: Path) -> None:
    old, recent = save_output(tmp_path, "old"), save_output(tmp_path, "recent")
    other = tmp_path / "tool-output" / "notes.txt"
    other.write_text("not ours")
    _age(old, 8)
    _age(recent, 6)
    _age(other, 30)
    assert cleanup(tmp_path) == 1
    assert not old.exists() and recent.exists() and other.exists()
    assert cleanup(tmp_path, max_age_days=7, now=time.time() + 2 * 86_400) == 1
    assert not recent.exists()


def test_cleanup_without_folder(tmp_path: Path) -> None:
    assert cleanup(tmp_path / "nowhere") == 0
