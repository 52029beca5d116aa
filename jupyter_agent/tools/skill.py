"""``skill``: load a SKILL.md on demand — instructions the model pulls in when a task needs them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    path: Path


def _frontmatter(text: str) -> dict[str, str]:
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        return {}
    data: dict[str, str] = {}
    for line in text[3:end].splitlines():
        key, sep, value = line.partition(":")
        if sep:
            data[key.strip()] = value.strip().strip("\"'")
    return data


def skill_dirs(project_root: Path, home: Path) -> list[Path]:
    return [
        project_root / ".jupyter-agent" / "skills",
        project_root / ".claude" / "skills",
        home / ".config" / "jupyter-agent" / "skills",
    ]


def discover_skills(project_root: Path, home: Path) -> list[SkillInfo]:
    """Skills by name; the first folder that defines a name wins (project before global)."""
    found: dict[str, SkillInfo] = {}
    for folder in skill_dirs(project_root, home):
        for file in sorted(folder.glob("*/SKILL.md")) if folder.is_dir() else []:
            meta = _frontmatter(file.read_text(errors="replace"))
            name = meta.get("name") or file.parent.name
            if name not in found:
                found[name] = SkillInfo(name, meta.get("description", ""), file)
    return list(found.values())


class SkillArgs(BaseModel):
    name: str = Field(description="The name of the skill to load")


class SkillTool(Tool[SkillArgs]):
    name = "skill"
    description = (
        "Load a skill: a SKILL.md file with instructions for a kind of task. The available "
        "skills are listed in the system prompt; load one when the task matches its description."
    )
    Args = SkillArgs

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.name]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        skills = {s.name: s for s in discover_skills(ctx.project_root, Path.home())}
        skill = skills.get(args.name)
        if skill is None:
            names = ", ".join(sorted(skills)) or "(none installed)"
            raise ToolError(f"Unknown skill '{args.name}'. Available skills: {names}")
        await ctx.permit("skill", [args.name], f"Load skill {args.name}")
        body = skill.path.read_text(errors="replace")
        output = f"## Skill: {skill.name}\n\n**Base directory**: {skill.path.parent}\n\n{body}"
        return ToolResult(output=output, title=skill.name, metadata={"path": str(skill.path)})
