"""glob, grep (both backends) and list on real trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tools_support import Call

from jupyter_agent.tools.base import ToolError
from jupyter_agent.tools.glob import GlobTool
from jupyter_agent.tools.grep import GrepTool, find_rg, parse_ripgrep
from jupyter_agent.tools.ls import ListTool

SKIPPED = (".git", "node_modules", ".jupyter-agent", "__pycache__", ".ipynb_checkpoints")
BACKENDS = [
    pytest.param(False, id="python"),
    pytest.param(True, id="ripgrep", marks=pytest.mark.skipif(not find_rg(), reason="no rg")),
]


def touch(path: Path, text: str = "", mtime: float | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def tree(root: Path) -> Path:
    touch(root / "old.py", "def load_data():\n    return 1\n", mtime=1_000_000)
    touch(root / "pkg" / "new.py", "x = load_data()\ny = 2\n", mtime=3_000_000)
    touch(root / "pkg" / "notes.txt", "load_data is documented here\n", mtime=2_000_000)
    touch(root / "web" / "app.ts", "loadData()\n")
    for d in SKIPPED:
        touch(root / d / "hidden.py", "def load_data(): pass\n")
    return root


async def test_glob_recursive_newest_first_skipping_clutter(call: Call, tree: Path) -> None:
    result = await call(GlobTool(), pattern="**/*.py")
    assert result.output.split("\n") == ["pkg/new.py", "old.py"]
    assert result.metadata == {"count": 2, "limit_reached": False}


async def test_glob_pattern_semantics(call: Call, tree: Path) -> None:
    assert (await call(GlobTool(), pattern="*.py")).output == "old.py"
    assert (await call(GlobTool(), pattern="pkg/*")).output.split("\n") == [
        "pkg/new.py",
        "pkg/notes.txt",
    ]
    both = (await call(GlobTool(), pattern="**/*.{ts,txt}")).output.split("\n")
    assert sorted(both) == ["pkg/notes.txt", "web/app.ts"]
    assert (await call(GlobTool(), pattern="*.py", path="pkg")).output == "pkg/new.py"
    assert (await call(GlobTool(), pattern="**/*.rs")).output == "No files found"


async def test_glob_caps_at_100_with_a_note(call: Call, root: Path) -> None:
    for i in range(105):
        touch(root / "many" / f"f{i:03d}.csv", mtime=1_000_000 + i)
    result = await call(GlobTool(), pattern="many/*.csv")
    lines = result.output.split("\n")
    assert lines[0] == "many/f104.csv" and lines[99] == "many/f005.csv"
    assert "showing the 100 newest of 105 files" in lines[-1] and result.metadata["limit_reached"]


async def test_glob_errors(call: Call, tree: Path) -> None:
    with pytest.raises(ToolError, match="pattern must be relative"):
        await call(GlobTool(), pattern="/etc/*.conf")
    with pytest.raises(ToolError, match="Not a directory"):
        await call(GlobTool(), pattern="*", path="old.py")


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_grep_groups_by_file_newest_first(call: Call, tree: Path, use_rg: bool) -> None:
    result = await call(GrepTool(use_ripgrep=use_rg), pattern=r"load_data\b")
    assert result.output == (
        "Found 3 matches\n\npkg/new.py:\n  Line 1: x = load_data()\n\n"
        "pkg/notes.txt:\n  Line 1: load_data is documented here\n\n"
        "old.py:\n  Line 1: def load_data():"
    )
    assert result.metadata["backend"] == ("rg" if use_rg else "python")


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_grep_include_path_and_no_match(call: Call, tree: Path, use_rg: bool) -> None:
    tool = GrepTool(use_ripgrep=use_rg)
    only_py = (await call(tool, pattern="load_data", include="*.py")).output
    assert "old.py:" in only_py and "notes.txt" not in only_py
    braces = (await call(tool, pattern="(?i)load_?data", include="*.{ts,txt}")).output
    assert braces.startswith("Found 2 matches") and "web/app.ts:" in braces
    one_file = (await call(tool, pattern="y = ", path="pkg/new.py")).output
    assert one_file == "Found 1 matches\n\npkg/new.py:\n  Line 2: y = 2"
    assert (await call(tool, pattern="nothing_like_this")).output == "No files found"
    in_pkg = (await call(tool, pattern="load_data", include="pkg/*.py")).output
    assert in_pkg == "Found 1 matches\n\npkg/new.py:\n  Line 1: x = load_data()"
    anywhere = (await call(tool, pattern="load_data", include="**/*.py")).output
    assert anywhere.startswith("Found 2 matches") and "old.py:" in anywhere


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_grep_skips_binary_and_caps_at_100(call: Call, root: Path, use_rg: bool) -> None:
    (root / "blob.bin2").write_bytes(b"\x00\x01 needle \x00")
    touch(root / "many.txt", "".join(f"needle {i}\n" for i in range(150)))
    result = await call(GrepTool(use_ripgrep=use_rg), pattern="needle")
    lines = result.output.split("\n")
    assert lines[0] == "Found 150 matches (showing first 100)" and "blob.bin2" not in result.output
    assert lines[2] == "many.txt:" and lines[3] == "  Line 1: needle 0" and "  Line 100: needle 99" in lines
    assert "Line 101:" not in result.output and "(Results are truncated." in lines[-1]


async def test_grep_python_backend_errors_and_symlinks(call: Call, root: Path, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Invalid regular expression"):
        await call(GrepTool(use_ripgrep=False), pattern="(unclosed")
    with pytest.raises(ToolError, match="Path not found"):
        await call(GrepTool(use_ripgrep=False), pattern="x", path="nope")
    touch(tmp_path / "outside.txt", "secret token\n")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    # links are not followed while walking (as ripgrep), so nothing leaks from outside
    out = (await call(GrepTool(use_ripgrep=False), pattern="secret")).output
    assert out == "No files found"


def test_parse_ripgrep_null_separated_output() -> None:
    raw = b"src/a:b.py\x0012:x = 1: two\nweird\nnotes.md\x003:ok\n"
    assert parse_ripgrep(raw) == [
        (Path("src/a:b.py"), 12, "x = 1: two"),
        (Path("notes.md"), 3, "ok"),
    ]


async def test_list_tree_folders_first_with_default_ignores(call: Call, tree: Path) -> None:
    touch(tree / "dist" / "bundle.js")
    result = await call(ListTool())
    assert result.output == "\n".join(
        [f"{tree}/", "  pkg/", "    new.py", "    notes.txt", "  web/", "    app.ts", "  old.py"]
    )
    assert result.metadata == {"count": 6, "limit_reached": False}


async def test_list_ignore_patterns_and_subfolder(call: Call, tree: Path) -> None:
    out = (await call(ListTool(), ignore=["*.txt", "web"])).output
    assert "notes.txt" not in out and "web/" not in out and "new.py" in out
    sub = (await call(ListTool(), path="pkg")).output
    assert sub == f"{tree / 'pkg'}/\n  new.py\n  notes.txt"
    with pytest.raises(ToolError, match="It is a file: use read"):
        await call(ListTool(), path="old.py")


async def test_list_cap_is_breadth_first(call: Call, root: Path) -> None:
    for i in range(150):
        touch(root / "a_deep" / f"f{i:03d}.txt")
    touch(root / "z_top.txt")
    result = await call(ListTool())
    lines = result.output.split("\n")
    assert "  z_top.txt" in lines  # the top level is complete even though a_deep is huge
    assert sum(1 for line in lines if line.startswith("    f")) == 98
    assert result.metadata == {"count": 100, "limit_reached": True}
    assert "Showing the first 100 entries" in lines[-1]
