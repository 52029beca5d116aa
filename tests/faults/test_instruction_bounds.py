"""Issue 27.6: ``instructions`` patterns that reach far are bounded, and what they leave out is said.

``["/etc/*", "../../**/*"]`` walked everything above the project and put every file it found
into every request. Now the patterns bring in at most 50 files within 2 s, the files hold
200 kB in all, unreadable ones are skipped, and each cut is a notice.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from scripted_server import Reply

from jupyter_agent.context import system


def _tree(top: Path, folders: int, files: int) -> None:
    for d in range(folders):
        folder = top / f"d{d:03}"
        folder.mkdir(parents=True)
        for f in range(files):
            (folder / f"n{f:03}.md").write_text(f"note {d} {f}\n")


def test_far_patterns_are_bounded_and_said(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b" / "proj"
    root.mkdir(parents=True)
    _tree(tmp_path / "a" / "big", folders=40, files=30)
    skipped: list[str] = []
    started = time.monotonic()
    found = system.find_instruction_files(
        start_dir=root,
        root=root,
        home=tmp_path / "home",
        config_instructions=["../../**/*", "/etc/*", "docs/*.md"],
        skipped=skipped,
    )
    assert time.monotonic() - started < 10  # bounded by the 2 s walk limit (room for a loaded machine)
    assert len(found) == system.MAX_INSTRUCTION_FILES
    assert skipped[0] == "instructions '../../**/*': more than 50 files match; the first 50 are read"
    assert skipped[1] == "instructions '/etc/*': not read, 50 files are in already"
    assert skipped[2] == "instructions 'docs/*.md': not read, 50 files are in already"


def test_a_walk_that_takes_too_long_stops_with_what_it_found(tmp_path: Path, monkeypatch: Any) -> None:
    _tree(tmp_path / "big", folders=30, files=2)
    monkeypatch.setattr(system, "INSTRUCTION_WALK_S", 0.0)
    skipped: list[str] = []
    found = system.find_instruction_files(
        start_dir=tmp_path,
        root=tmp_path,
        home=tmp_path / "h",
        config_instructions=["big/**/*.md"],
        skipped=skipped,
    )
    assert found == []
    assert skipped == ["instructions 'big/**/*.md': the walk stopped after 0 s; 0 files read"]


async def test_the_run_uses_what_fits_and_says_the_rest(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    """A huge instruction file and an unreadable one: left out, said once each in the notices;
    the request's system prompt stays small."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "small.md").write_text("Use tabs.")
    (tmp_path / "notes" / "huge.md").write_text("x" * 300_000)
    (tmp_path / "notes" / "secret.md").write_text("no")
    os.chmod(tmp_path / "notes" / "secret.md", 0)
    runtime = make_runtime(instructions=["notes/*.md", "[z-a]*.md"])
    scripted_model.queue(Reply(text="ok"))
    await runtime.prompt("hi")
    system_prompt = scripted_model.requests[0]["body"]["messages"][0]["content"]
    assert "Use tabs." in system_prompt and len(system_prompt) < 100_000
    notices = runtime.notices
    assert any("huge.md left out (300,000 bytes" in n for n in notices), notices
    assert any("'[z-a]*.md': not used: the pattern has an invalid [...] class" in n for n in notices), notices
    if os.geteuid() != 0:  # root reads anything
        assert any("secret.md cannot be read (Permission denied)" in n for n in notices), notices
