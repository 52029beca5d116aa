"""read: numbering, paging, footers, cuts, errors, media attachments."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from tools_support import Call, Recorder

from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.read import MAX_BYTES, ReadTool

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def lines(n: int, fmt: str = "line {}") -> str:
    return "".join(fmt.format(i) + "\n" for i in range(1, n + 1))


async def test_whole_small_file_exact_format(call: Call, root: Path, rec: Recorder) -> None:
    (root / "a.txt").write_text("alpha\n  beta\ngamma\n")
    result = await call(ReadTool(), filePath="a.txt")
    assert result.output == (
        "<file>\n00001| alpha\n00002|   beta\n00003| gamma\n\n(End of file - total 3 lines)\n</file>"
    )
    assert result.title == "a.txt" and "truncated" not in result.metadata
    assert rec.asked("read") == [["a.txt"]] and rec.asked("external_directory") == []


async def test_offset_and_limit_page_with_footer(call: Call, root: Path) -> None:
    (root / "a.txt").write_text(lines(10))
    result = await call(ReadTool(), filePath="a.txt", offset=2, limit=3)
    body = result.output.split("\n")
    assert body[1:4] == ["00003| line 3", "00004| line 4", "00005| line 5"]
    assert "00006|" not in result.output and "00002|" not in result.output
    assert "(File has more lines. Use 'offset' parameter to read beyond line 5)" in result.output
    assert result.metadata["truncated"] is True
    last = await call(ReadTool(), filePath="a.txt", offset=8)
    assert "00009| line 9" in last.output and "(End of file - total 10 lines)" in last.output
    assert "truncated" not in last.metadata


async def test_default_limit_is_2000_lines(call: Call, root: Path) -> None:
    (root / "big.txt").write_text(lines(2500, "{}"))
    out = (await call(ReadTool(), filePath="big.txt")).output
    assert "02000| 2000" in out and "02001|" not in out
    assert "read beyond line 2000)" in out


async def test_long_lines_cut_and_bytes_capped(call: Call, root: Path) -> None:
    (root / "wide.txt").write_text("x" * 3000 + "\nshort\n")
    result = await call(ReadTool(), filePath="wide.txt")
    first = result.output.split("\n")[1]
    assert first == "00001| " + "x" * 2000 + "..." and result.metadata["truncated"] is True
    (root / "heavy.txt").write_text(lines(1000, "{:0>120}"))
    capped = await call(ReadTool(), filePath="heavy.txt")
    assert len(capped.output.encode()) <= MAX_BYTES
    assert "Output capped at" in capped.output and capped.metadata["truncated"] is True
    shown = capped.metadata["lines"]
    assert 300 < shown < 1000 and f"read beyond line {shown})" in capped.output


async def test_crlf_and_empty_files(call: Call, root: Path) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    assert "00001| one\n00002| two\n" in (await call(ReadTool(), filePath="win.txt")).output
    (root / "empty.txt").write_text("")
    assert "(End of file - total 0 lines)" in (await call(ReadTool(), filePath="empty.txt")).output


async def test_offset_beyond_end_is_an_error(call: Call, root: Path) -> None:
    (root / "a.txt").write_text(lines(3))
    with pytest.raises(ToolError, match="beyond the end of the file \\(3 lines\\)"):
        await call(ReadTool(), filePath="a.txt", offset=10)


async def test_missing_file_suggests_similar_names(call: Call, root: Path) -> None:
    for name in ("notes.md", "notes_old.md", "Notes.txt", "unrelated.csv"):
        (root / name).write_text("x")
    with pytest.raises(ToolError) as err:
        await call(ReadTool(), filePath="note.md")
    message = str(err.value)
    assert message.startswith(f"File not found: {root / 'note.md'}")
    suggested = message.split("Did you mean one of these?\n")[1].split("\n")
    assert str(root / "notes.md") in suggested and len(suggested) <= 3
    assert str(root / "unrelated.csv") not in suggested


async def test_directory_and_binary_errors(call: Call, root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(ToolError, match=r"directory.*list tool"):
        await call(ReadTool(), filePath="sub")
    (root / "blob.dat2").write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(ToolError, match="Cannot read binary file"):
        await call(ReadTool(), filePath="blob.dat2")
    (root / "model.pkl").write_bytes(b"looks like text")
    with pytest.raises(ToolError, match="binary"):
        await call(ReadTool(), filePath="model.pkl")


async def test_images_and_pdfs_become_attachments(call: Call, root: Path) -> None:
    (root / "plot.PNG").write_bytes(PNG)
    result = await call(ReadTool(), filePath="plot.PNG")
    assert result.output == "Image read successfully"
    (attachment,) = result.attachments
    assert attachment.mime == "image/png" and attachment.filename == "plot.PNG"
    prefix = "data:image/png;base64,"
    assert attachment.url.startswith(prefix) and base64.b64decode(attachment.url[len(prefix) :]) == PNG
    (root / "doc.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\n")
    pdf = await call(ReadTool(), filePath="doc.pdf")
    assert pdf.output == "PDF read successfully" and pdf.attachments[0].mime == "application/pdf"
    (root / "photo.webp").write_bytes(b"RIFF0000WEBP")
    assert (await call(ReadTool(), filePath="photo.webp")).attachments[0].mime == "image/webp"


async def test_absolute_path_inside_project(call: Call, root: Path, rec: Recorder) -> None:
    (root / "a.txt").write_text("x\n")
    assert "00001| x" in (await call(ReadTool(), filePath=str(root / "a.txt"))).output
    assert rec.asked("external_directory") == []
