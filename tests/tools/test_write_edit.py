"""write and edit: patches recorded before writing, matching rules, fallbacks, errors."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from tools_support import Call, Recorder

from jupyter_agent.core.messages import FileChange
from jupyter_agent.tools.base import PermissionDenied, ToolContext, ToolError
from jupyter_agent.tools.edit import EditTool, apply_edit
from jupyter_agent.tools.write import WriteTool


async def test_write_creates_parents_and_records_new_file(call: Call, root: Path, rec: Recorder) -> None:
    result = await call(WriteTool(), filePath="src/pkg/m.py", content="a = 1\nb = 2\n")
    assert (root / "src/pkg/m.py").read_text() == "a = 1\nb = 2\n"
    assert rec.patches == [FileChange(path=str(root / "src/pkg/m.py"), before=None, after="a = 1\nb = 2\n")]
    assert rec.asked("edit") == [["src/pkg/m.py"]]
    assert result.output == "Created src/pkg/m.py (2 lines)." and result.title == "src/pkg/m.py"


async def test_write_overwrite_records_old_text(call: Call, root: Path, rec: Recorder) -> None:
    (root / "a.txt").write_text("old\n")
    result = await call(WriteTool(), filePath="a.txt", content="new")
    assert rec.patches[0].before == "old\n" and rec.patches[0].after == "new" and not rec.patches[0].binary
    assert (root / "a.txt").read_text() == "new" and result.output.startswith("Overwrote a.txt")


async def test_write_over_binary_records_base64(call: Call, root: Path, rec: Recorder) -> None:
    raw = b"\x89PNG\x00\xff\xfe"
    (root / "img.bin").write_bytes(raw)
    await call(WriteTool(), filePath="img.bin", content="text now")
    change = rec.patches[0]
    assert change.binary and base64.b64decode(change.before or "") == raw


async def test_patch_is_recorded_before_the_write(ctx: ToolContext, root: Path) -> None:
    (root / "a.txt").write_text("before")
    seen: list[str] = []
    ctx.on_patch = lambda changes: seen.append((root / "a.txt").read_text())
    tool = WriteTool()
    await tool.run(tool.Args(filePath="a.txt", content="after"), ctx)
    assert seen == ["before"] and (root / "a.txt").read_text() == "after"
    edit = EditTool()
    await edit.run(edit.Args(filePath="a.txt", oldString="after", newString="later"), ctx)
    assert seen == ["before", "after"]


async def test_write_errors_and_rejection(call: Call, root: Path, rec: Recorder) -> None:
    (root / "folder").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await call(WriteTool(), filePath="folder", content="x")
    rec.reject.add("edit")
    with pytest.raises(PermissionDenied):
        await call(WriteTool(), filePath="denied.txt", content="x")
    assert not (root / "denied.txt").exists() and rec.patches == []


async def test_edit_replaces_once_and_returns_diff(call: Call, root: Path, rec: Recorder) -> None:
    (root / "m.py").write_text("a = 1\nb = 2\nc = 3\n")
    result = await call(EditTool(), filePath="m.py", oldString="b = 2", newString="b = 20")
    assert (root / "m.py").read_text() == "a = 1\nb = 20\nc = 3\n"
    assert rec.patches == [
        FileChange(path=str(root / "m.py"), before="a = 1\nb = 2\nc = 3\n", after="a = 1\nb = 20\nc = 3\n")
    ]
    diff = result.metadata["diff"]
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n") and "-b = 2\n+b = 20\n" in diff
    assert result.output == "Edited m.py: 1 replacement(s), +1 -1 lines."
    assert rec.calls[-1][0] == "edit" and rec.calls[-1][3]["diff"] == diff


async def test_edit_not_found_multiple_and_replace_all(call: Call, root: Path, rec: Recorder) -> None:
    f = root / "f.py"
    f.write_text("x = 1\ny = x\nx = 1\n")
    with pytest.raises(ToolError, match=r"oldString not found in file f\.py"):
        await call(EditTool(), filePath="f.py", oldString="z = 1", newString="z = 2")
    with pytest.raises(ToolError, match=r"Found 2 matches .* set replaceAll"):
        await call(EditTool(), filePath="f.py", oldString="x = 1", newString="x = 2")
    assert f.read_text() == "x = 1\ny = x\nx = 1\n" and rec.patches == []
    result = await call(EditTool(), filePath="f.py", oldString="x = 1", newString="x = 2", replaceAll=True)
    assert f.read_text() == "x = 2\ny = x\nx = 2\n" and result.metadata["replacements"] == 2


async def test_edit_identical_strings_rejected(call: Call, root: Path) -> None:
    (root / "f.py").write_text("x")
    with pytest.raises(ToolError, match="identical"):
        await call(EditTool(), filePath="f.py", oldString="x", newString="x")


async def test_trimmed_lines_fallback_tolerates_indentation(call: Call, root: Path) -> None:
    f = root / "f.py"
    f.write_text("def f():\n    if x:\n        return 1\n    return 2\n")
    await call(
        EditTool(),
        filePath="f.py",
        oldString="if x:\n    return 1",
        newString="    if y:\n        return 3",
    )
    assert f.read_text() == "def f():\n    if y:\n        return 3\n    return 2\n"


def test_fallbacks_whitespace_escapes_and_boundaries() -> None:
    text = "total  =   a +  b\nprint(total)\n"
    assert apply_edit(text, "total = a + b", "total = a", False, "f") == (
        "total = a\nprint(total)\n",
        1,
    )
    assert apply_edit("say('hi')\nnext\n", "say('hi')\\nnext", "done", False, "f")[0] == "done\n"
    assert apply_edit("a\nb\n", "\n\nb\n\n", "c", False, "f")[0] == "a\nc\n"
    # a trailing newline in oldString is kept in the replaced span
    assert apply_edit("  x \n  y\n", "x\n", "z\n", False, "f")[0] == "z\n  y\n"
    # ambiguous fallback matches are reported like exact ones
    with pytest.raises(ToolError, match="Found 2 matches"):
        apply_edit("  go(1)  \n\tgo(1)\t\n", "go(1)\n", "stop()\n", False, "f")


def test_trimmed_lines_tried_before_looser_whitespace_rule() -> None:
    # trimmed lines find one block; collapsing inner spaces would find two (ambiguous)
    assert apply_edit("  a b \n a  b\n", "a b\t", "c", False, "f")[0] == "c\n a  b\n"


def test_exact_match_preferred_over_fallbacks() -> None:
    # exact "x = 1" occurs once even though a trimmed-line search would also find "  x = 1"
    assert apply_edit("x = 1\n  x = 1 \n", "x = 1\n", "y\n", False, "f")[0] == "y\n  x = 1 \n"


async def test_crlf_files_stay_crlf(call: Call, root: Path) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await call(EditTool(), filePath="w.txt", oldString="one\ntwo", newString="uno\ndos")
    assert (root / "w.txt").read_bytes() == b"uno\r\ndos\r\nthree\r\n"


async def test_empty_old_string_creates_missing_file(call: Call, root: Path, rec: Recorder) -> None:
    result = await call(EditTool(), filePath="new/n.py", oldString="", newString="print(1)\n")
    assert (root / "new/n.py").read_text() == "print(1)\n" and result.output.startswith("Created")
    assert rec.patches[0].before is None
    with pytest.raises(ToolError, match=r"oldString is empty but new/n\.py already has content"):
        await call(EditTool(), filePath="new/n.py", oldString="", newString="other")
    with pytest.raises(ToolError, match="File not found"):
        await call(EditTool(), filePath="missing.py", oldString="a", newString="b")


async def test_edit_refuses_binary_and_directories(call: Call, root: Path) -> None:
    (root / "b.bin").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ToolError, match="not a UTF-8 text file"):
        await call(EditTool(), filePath="b.bin", oldString="a", newString="b")
    (root / "d").mkdir()
    with pytest.raises(ToolError, match="directory"):
        await call(EditTool(), filePath="d", oldString="a", newString="b")


async def test_edit_rejected_changes_nothing(call: Call, root: Path, rec: Recorder) -> None:
    (root / "f.py").write_text("a\n")
    rec.reject.add("edit")
    with pytest.raises(PermissionDenied):
        await call(EditTool(), filePath="f.py", oldString="a", newString="b")
    assert (root / "f.py").read_text() == "a\n" and rec.patches == []
