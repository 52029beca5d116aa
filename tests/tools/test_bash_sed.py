"""``sed -i 's/beta/gamma/' f`` ran into an IndexError in the deny-rule check (a word ending in
"/" left an empty tail): the tool failed instead of running the command."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.tools.base import ToolContext
from jupyter_agent.tools.bash import BashTool
from jupyter_agent.tools.bash_check import token_tails


def test_no_empty_tails() -> None:
    assert all(t.split() for t in token_tails("s/beta/gamma/ data/"))


async def test_sed_in_place_runs(tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("alpha\nbeta\n")
    ctx = ToolContext(
        session_id="s",
        message_id="m",
        call_id="c",
        agent="build",
        project_root=tmp_path,
        working_dir=tmp_path,
    )
    tool = BashTool()
    await tool.run(tool.Args(command="sed -i 's/beta/gamma/' data.txt"), ctx)
    assert (tmp_path / "data.txt").read_text() == "alpha\ngamma\n"
