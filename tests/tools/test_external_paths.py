"""Anything outside the project root asks ``external_directory`` first; a reject touches nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools_support import Call, Recorder

from jupyter_agent.tools.base import PermissionDenied
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool
from jupyter_agent.tools.ls import ListTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.write import WriteTool

UP_TO_FS_ROOT = "../" * 40


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


async def test_path_traversal_asks_before_reading(call: Call, rec: Recorder) -> None:
    rec.reject.add("external_directory")
    with pytest.raises(PermissionDenied):
        await call(ReadTool(), filePath=UP_TO_FS_ROOT + "etc/passwd")
    assert rec.asked("external_directory") == [["/etc/*"]]
    assert rec.calls[0][2] == "Read outside the project: /etc/passwd"
    assert rec.asked("read") == []  # nothing after the rejected check


async def test_symlink_pointing_outside_is_external(
    call: Call, root: Path, rec: Recorder, outside: Path
) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside, target_is_directory=True)
    rec.reject.add("external_directory")
    with pytest.raises(PermissionDenied):
        await call(ReadTool(), filePath="link.txt")
    with pytest.raises(PermissionDenied):
        await call(WriteTool(), filePath="linkdir/new.txt", content="x")
    with pytest.raises(PermissionDenied):
        await call(EditTool(), filePath="link.txt", oldString="secret", newString="public")
    assert rec.asked("external_directory") == [[f"{outside}/*"]] * 3
    assert (outside / "secret.txt").read_text() == "secret\n" and not (outside / "new.txt").exists()
    assert rec.patches == []


async def test_rejected_write_outside_writes_nothing(call: Call, rec: Recorder, outside: Path) -> None:
    rec.reject.add("external_directory")
    with pytest.raises(PermissionDenied):
        await call(WriteTool(), filePath=str(outside / "sub" / "x.txt"), content="x")
    assert not (outside / "sub").exists() and rec.patches == [] and rec.asked("edit") == []


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
