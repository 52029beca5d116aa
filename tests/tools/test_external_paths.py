"""Paths outside the project root ask ``external_directory``; inside paths never ask.

``../../etc/passwd``, symlinks out of the project and rejected writes are in the fault
suite, tests/faults/test_path_faults.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import Call, Recorder

from jupyter_agent.tools.base import PermissionDenied
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool
from jupyter_agent.tools.ls import ListTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


async def test_allowed_external_read_and_write(call: Call, rec: Recorder, outside: Path) -> None:
    out = (await call(ReadTool(), filePath=str(outside / "secret.txt"))).output
    assert "00001| secret" in out
    await call(WriteTool(), filePath=str(outside / "made.txt"), content="ok")
    assert (outside / "made.txt").read_text() == "ok"
    assert rec.asked("external_directory") == [[f"{outside}/*"]] * 2
    assert rec.asked("edit") == [[str(outside / "made.txt")]]  # absolute: not under the root


async def test_search_tools_check_their_folder(call: Call, rec: Recorder, outside: Path) -> None:
    rec.reject.add("external_directory")
    for tool, args in (
        (GlobTool(), {"pattern": "*"}),
        (GrepTool(use_ripgrep=False), {"pattern": "secret"}),
        (ListTool(), {}),
    ):
        with pytest.raises(PermissionDenied):
            await call(tool, path=str(outside), **args)
    assert rec.asked("external_directory") == [[f"{outside}/*"]] * 3


async def test_inside_paths_never_ask(call: Call, root: Path, rec: Recorder) -> None:
    (root / "sub").mkdir()
    await call(WriteTool(), filePath="sub/../a.txt", content="x\n")
    await call(ReadTool(), filePath="./a.txt")
    await call(ListTool(), path="sub")
    assert rec.asked("external_directory") == []
