"""Full tool outputs are saved and cleaned up after the retention period."""

from __future__ import annotations

import os
import time
from pathlib import Path

from jupyter_agent.storage.spill import cleanup, save_output


def test_save_and_cleanup_by_age(tmp_path: Path) -> None:
    old = save_output(tmp_path, "old output")
    new = save_output(tmp_path, "new output ü")
    assert old.name.startswith("tool_") and old.name < new.name
    assert new.read_text(encoding="utf-8") == "new output ü"
    eight_days = time.time() - 8 * 86_400
    os.utime(old, (eight_days, eight_days))
    assert cleanup(tmp_path) == 1
    assert not old.exists() and new.exists()
