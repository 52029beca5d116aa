"""SPEC "System prompt": order, environment block, instruction discovery, tokens offline."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.context import tokens
from jupyter_agent.context.system import (
    NotebookInfo,
    build_system_prompt,
    environment_block,
    find_instruction_files,
)


def test_environment_block_has_notebook() -> None:
    block = environment_block(
        model="anthropic/claude-x",
        cwd="/p/nb",
        root="/p",
        is_git=True,
        platform="linux",
        date="Sun Nov 22 2026",
        notebook=NotebookInfo(path="/p/nb/a.ipynb", kernel="python 3.11.7", cells=12),
    )
    assert block.startswith(
        "You are powered by the model named claude-x. The exact model ID is anthropic/claude-x"
    )
    assert "  Is directory a git repo: yes" in block and "  Cells: 12" in block
    assert block.index("</env>") < block.index("<notebook>")


def test_instruction_files_nearest_first_then_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("global")
    root = tmp_path / "proj"
    deep = root / "a" / "b"
    deep.mkdir(parents=True)
    (root / "AGENTS.md").write_text("root agents")
    (root / "a" / "AGENTS.md").write_text("a agents")
    (deep / "CLAUDE.md").write_text("claude near")  # AGENTS.md exists somewhere: CLAUDE.md is not used
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("style")
    found = find_instruction_files(start_dir=deep, root=root, home=home, config_instructions=["docs/*.md"])
    assert found == [
        home / ".claude" / "CLAUDE.md",
        root / "a" / "AGENTS.md",
        root / "AGENTS.md",
        root / "docs" / "style.md",
    ]
    skipped = find_instruction_files(
        start_dir=deep, root=root, home=home, skip_global=True, skip_project=True
    )
    assert skipped == []


def test_prompt_order() -> None:
    text = build_system_prompt("AGENT", "ENV", [("/x/AGENTS.md", "be nice")], [("csv", "load csv files")])
    assert text.split("\n")[:3] == ["AGENT", "ENV", "Instructions from: /x/AGENTS.md"]
    assert text.endswith("- csv: load csv files")


def test_tokens_are_counted_offline_with_tiktoken() -> None:
    assert tokens.backend().startswith("tiktoken:")
    assert tokens.count_tokens("hello world") == 2
    counter = tokens.TokenCounter()
    assert counter.count("a b c d", key="prt_1") == counter.count("a b c d", key="prt_1")
