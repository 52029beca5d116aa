"""read, write, edit, glob, grep, list, skill, todowrite on real files."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from jupyter_agent.tools.base import PermissionDenied, ToolContext, ToolError
from jupyter_agent.tools.edit import EditTool
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool
from jupyter_agent.tools.ls import ListTool
from jupyter_agent.tools.read import ReadTool
from jupyter_agent.tools.registry import default_registry
from jupyter_agent.tools.skill import SkillTool
from jupyter_agent.tools.todo import TodoWriteTool
from jupyter_agent.tools.write import WriteTool


async def run(tool, ctx, **args):  # type: ignore[no-untyped-def]
    return await tool.run(tool.Args(**args), ctx)


async def test_read_numbers_pages_and_footers(ctx: ToolContext) -> None:
    (ctx.project_root / "a.txt").write_text("\n".join(f"line {i}" for i in range(1, 11)) + "\n")
    out = (await run(ReadTool(), ctx, filePath="a.txt")).output
    assert "00001| line 1" in out and "(End of file - total 10 lines)" in out
    page = (await run(ReadTool(), ctx, filePath="a.txt", offset=2, limit=3)).output
    assert "00003| line 3" in page and "00006|" not in page and "beyond line 5" in page


async def test_read_errors_and_images(ctx: ToolContext) -> None:
    (ctx.project_root / "notes.md").write_text("x")
    with pytest.raises(ToolError, match="notes.md"):
        await run(ReadTool(), ctx, filePath="note.md")
    with pytest.raises(ToolError, match="list tool"):
        await run(ReadTool(), ctx, filePath=".")
    (ctx.project_root / "blob.bin").write_bytes(b"\x00\x01binary")
    with pytest.raises(ToolError, match="binary"):
        await run(ReadTool(), ctx, filePath="blob.bin")
    png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")
    (ctx.project_root / "p.png").write_bytes(png)
    result = await run(ReadTool(), ctx, filePath="p.png")
    assert result.attachments[0].mime == "image/png" and result.attachments[0].url.startswith("data:image/png;base64,")


async def test_write_and_edit_record_before_content(ctx: ToolContext, asks) -> None:  # type: ignore[no-untyped-def]
    await run(WriteTool(), ctx, filePath="src/m.py", content="a = 1\nb = 2\n")
    assert asks.patches[-1].before is None and (ctx.project_root / "src/m.py").read_text() == "a = 1\nb = 2\n"
    await run(EditTool(), ctx, filePath="src/m.py", oldString="b = 2", newString="b = 3")
    assert asks.patches[-1].before == "a = 1\nb = 2\n"
    assert (ctx.project_root / "src/m.py").read_text() == "a = 1\nb = 3\n"
    assert ("edit", ["src/m.py"]) in asks.calls


async def test_edit_failures_and_fallbacks(ctx: ToolContext) -> None:
    f = ctx.project_root / "f.py"
    f.write_text("def f():\n    x = 1\n    x = 1\n    return x\n")
    with pytest.raises(ToolError, match="Found 2 matches"):
        await run(EditTool(), ctx, filePath="f.py", oldString="x = 1", newString="x = 2")
    with pytest.raises(ToolError, match="not found"):
        await run(EditTool(), ctx, filePath="f.py", oldString="y = 1", newString="y = 2")
    with pytest.raises(ToolError, match="identical"):
        await run(EditTool(), ctx, filePath="f.py", oldString="x", newString="x")
    await run(EditTool(), ctx, filePath="f.py", oldString="x = 1", newString="x = 2", replaceAll=True)
    assert f.read_text().count("x = 2") == 2
    # indentation drift: the model dropped the leading spaces
    await run(EditTool(), ctx, filePath="f.py", oldString="return x", newString="return x + 1")
    await run(EditTool(), ctx, filePath="f.py", oldString="x = 2\nx = 2", newString="x = 5")
    assert "x = 5" in f.read_text() and "return x + 1" in f.read_text()


async def test_outside_paths_need_external_directory(ctx: ToolContext, asks, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    secret = tmp_path / "secret.txt"
    secret.write_text("s")
    asks.reject.add("external_directory")
    with pytest.raises(PermissionDenied):
        await run(ReadTool(), ctx, filePath="../secret.txt")
    (ctx.project_root / "link").symlink_to(secret)
    with pytest.raises(PermissionDenied):
        await run(ReadTool(), ctx, filePath="link")
    with pytest.raises(PermissionDenied):
        await run(WriteTool(), ctx, filePath="../../etc/passwd-copy", content="x")
    assert not (tmp_path.parent / "etc").exists()
    assert [c[0] for c in asks.calls].count("external_directory") == 3


async def test_glob_grep_list(ctx: ToolContext) -> None:
    root = ctx.project_root
    (root / "pkg").mkdir()
    (root / "pkg" / "a.py").write_text("def load_data():\n    pass\n")
    (root / "pkg" / "b.txt").write_text("load_data mention\n")
    (root / ".git").mkdir()
    (root / ".git" / "x.py").write_text("def load_data(): pass")
    assert (await run(GlobTool(), ctx, pattern="**/*.py")).output == "pkg/a.py"
    for use_rg in (True, False):
        tool = GrepTool()
        tool.use_ripgrep = use_rg
        out = (await run(tool, ctx, pattern=r"def load_\w+")).output
        assert out.startswith("Found 1 matches") and "Line 1: def load_data():" in out
        scoped = (await run(tool, ctx, pattern="load_data", include="*.txt")).output
        assert "b.txt" in scoped and "a.py" not in scoped
    listing = (await run(ListTool(), ctx)).output
    assert "pkg/" in listing and "  a.py" in listing.replace("    ", "  ") and ".git" not in listing


async def test_skill_and_todo(ctx: ToolContext) -> None:
    folder = ctx.project_root / ".jupyter-agent" / "skills" / "csv"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: csv\ndescription: Load CSV files well\n---\nUse pandas.read_csv.")
    out = (await run(SkillTool(), ctx, name="csv")).output
    assert out.startswith("## Skill: csv") and "Use pandas.read_csv." in out
    with pytest.raises(ToolError, match="Available skills: csv"):
        await run(SkillTool(), ctx, name="nope")
    result = await run(TodoWriteTool(), ctx, todos=[{"content": "a", "status": "pending", "id": "1"}])
    assert result.title == "1 todos" and ctx.extra["todos"]["ses_t"][0]["content"] == "a"


def test_registry_messages() -> None:
    registry = default_registry()
    with pytest.raises(ToolError, match="Invalid JSON"):
        registry.validate("read", '{"filePath": ')
    with pytest.raises(ToolError, match="filePath"):
        registry.validate("read", '{"offset": 3}')
    with pytest.raises(ToolError, match="Unknown tool 'nope'. Available tools: read"):
        registry.validate("nope", "{}")
    names = [s["function"]["name"] for s in registry.specs()]
    assert names[:7] == ["read", "write", "edit", "glob", "grep", "list", "bash"]
    assert registry.specs(["read"])[0]["function"]["parameters"]["required"] == ["filePath"]
