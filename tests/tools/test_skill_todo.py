"""skill discovery and loading; todowrite storage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tools_support import Call, Recorder

from jupyter_agent.tools.base import ToolContext, ToolError
from jupyter_agent.tools.skill import SkillTool, discover_skills, split_frontmatter
from jupyter_agent.tools.todo import TodoWriteTool


def add_skill(folder: Path, name: str, description: str, body: str = "Do the thing.") -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_discovery_order_and_precedence(root: Path, home: Path) -> None:
    add_skill(root / ".jupyter-agent" / "skills", "csv", "Project CSV rules")
    add_skill(root / ".claude" / "skills", "csv", "Shadowed by the project skill")
    add_skill(root / ".claude" / "skills", "plots", "Plot style")
    add_skill(home / ".config" / "jupyter-agent" / "skills", "global", "From the home folder")
    (root / ".claude" / "skills" / "no-skill-file").mkdir()
    skills = discover_skills(root, home)
    assert [(s.name, s.description) for s in skills] == [
        ("csv", "Project CSV rules"),
        ("global", "From the home folder"),
        ("plots", "Plot style"),
    ]
    assert skills[0].path == root / ".jupyter-agent" / "skills" / "csv" / "SKILL.md"
    assert discover_skills(root / "missing", home / "missing") == []


def test_frontmatter_variants() -> None:
    meta, body = split_frontmatter(
        '---\nname: "quoted"\ndescription: >\n  Folded over\n  two lines\nextra: 1\n---\n\n# Body\n'
    )
    assert meta == {"name": "quoted", "description": "Folded over two lines", "extra": "1"}
    assert body == "# Body"
    assert split_frontmatter("no frontmatter") == ({}, "no frontmatter")
    assert split_frontmatter("---\nname: x\nnever closed") == ({}, "---\nname: x\nnever closed")


async def test_skill_tool_loads_body_without_frontmatter(
    call: Call, root: Path, home: Path, rec: Recorder
) -> None:
    path = add_skill(
        root / ".jupyter-agent" / "skills",
        "csv",
        "CSV rules",
        "Use pandas.read_csv.\nCheck dtypes.",
    )
    result = await call(SkillTool(home=home), name="csv")
    assert result.output == (
        f"## Skill: csv\n\n**Base directory**: {path.parent}\n\nUse pandas.read_csv.\nCheck dtypes."
    )
    assert result.title == "Loaded skill: csv" and rec.asked("skill") == [["csv"]]


async def test_unknown_skill_lists_available(call: Call, root: Path, home: Path) -> None:
    with pytest.raises(ToolError, match=r"Unknown skill 'csv'. Available skills: none"):
        await call(SkillTool(home=home), name="csv")
    add_skill(root / ".claude" / "skills", "b-skill", "B")
    add_skill(root / ".claude" / "skills", "a-skill", "A")
    with pytest.raises(ToolError) as err:
        await call(SkillTool(home=home), name="c-skill")
    assert str(err.value) == "Unknown skill 'c-skill'. Available skills: a-skill, b-skill"


def test_description_lists_skills_when_specs_are_built(root: Path, home: Path) -> None:
    tool = SkillTool(root, home)
    assert "No skills are installed right now." in tool.spec()["function"]["description"]
    add_skill(root / ".jupyter-agent" / "skills", "csv", "Load CSV files well")
    text = tool.spec()["function"]["description"]
    assert "<name>csv</name>\n    <description>Load CSV files well</description>" in text
    assert text.startswith("Load a skill")


async def test_todowrite_stores_per_session_and_replaces(call: Call, rec: Recorder) -> None:
    todos = [
        {"content": "load data", "status": "completed", "priority": "high", "id": "1"},
        {"content": "clean", "status": "in_progress", "id": "2"},
        {"content": "plot", "status": "pending", "priority": "low", "id": "3"},
    ]
    tool = TodoWriteTool()
    result = await call(tool, todos=todos)
    stored = json.loads(result.output)
    assert [t["id"] for t in stored] == ["1", "2", "3"] and stored[1]["priority"] == "medium"
    assert result.title == "2 todos" and result.metadata["todos"] == stored
    ctx_todos = await call(tool, todos=todos[:1])
    assert ctx_todos.title == "0 todos"


async def test_todowrite_uses_the_loops_dict(ctx: ToolContext, call: Call) -> None:
    shared: dict[str, list[dict[str, str]]] = {"other": []}
    ctx.services.todos = shared
    await call(TodoWriteTool(), todos=[{"content": "a", "status": "pending", "id": "x"}])
    assert shared["ses_t"][0]["content"] == "a" and shared["other"] == []
