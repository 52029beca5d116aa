"""Issue 26.5: edits through a hard link ask.

On main, bash ``ln <outside file> hard.txt`` (the path computed with ``printf``, so no
parser sees it) and then ``edit hard.txt`` changed the outside file with no
``external_directory`` question. The sandbox refuses the link (a mount cannot be linked
across), and ``write``/``edit`` on a file with other names asks ``external_directory``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hostile import computed, refused, run_bash, run_tool


async def test_the_reproduction(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path
) -> None:
    target = outside / "settings.txt"
    target.write_text("original")
    runtime = make_runtime()
    await run_bash(runtime, scripted_model, f"ln {computed(target)} hard.txt")
    part = await run_tool(
        runtime, scripted_model, "edit", filePath="hard.txt", oldString="original", newString="x"
    )
    assert part.state.status == "error", part.state
    assert target.read_text() == "original"


@pytest.mark.parametrize("tool", ["edit", "write"])
async def test_a_file_with_other_names_asks(
    make_runtime: Any, scripted_model: Any, tmp_path: Path, outside: Path, tool: str
) -> None:
    """The link is made outside the agent (or by python, which is not sandboxed)."""
    target = outside / "settings.txt"
    target.write_text("original")
    try:
        os.link(target, tmp_path / "hard.txt")
    except OSError as exc:  # /var/tmp and /tmp on different filesystems
        pytest.skip(f"cannot make the hard link here: {exc}")
    args = {"oldString": "original", "newString": "x"} if tool == "edit" else {"content": "x"}
    part = await run_tool(make_runtime(), scripted_model, tool, filePath="hard.txt", **args)
    error = refused(part)
    assert "'external_directory'" in error and "other names" in error
    assert target.read_text() == "original"


async def test_an_allowed_hard_link_edit_goes_through(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    runtime = make_runtime(permission={"external_directory": "allow"})
    part = await run_tool(runtime, scripted_model, "write", filePath="b.txt", content="two")
    assert part.state.status == "completed", part.state
    assert (tmp_path / "a.txt").read_text() == "two"
