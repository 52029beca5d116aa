"""``skill``: load a SKILL.md on demand — instructions the model pulls in when a task needs them.

A skill is a folder with a ``SKILL.md`` whose frontmatter has ``name`` and ``description``.
Only names and descriptions are advertised (system prompt and this tool's description);
the body costs context only when loaded. The tool description is built when the specs
are requested (:meth:`SkillTool.spec` → :func:`description_for`), so skills added
during a session show up at the next step.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from jupyter_agent.core.chat import ToolSpec
from jupyter_agent.tools.base import Tool, ToolContext, ToolError, ToolResult
from jupyter_agent.tools.descriptions import describe


@dataclass(frozen=True)
class SkillInfo:
    name: str
    description: str
    path: Path
    """The SKILL.md file; its folder is the skill's base directory."""


def split_frontmatter(text: str) -> tuple[dict[str, str], str]:
    """Simple YAML frontmatter (``key: value``, quoted, ``>``/``|`` blocks) and the body."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        return {}, text
    data: dict[str, str] = {}
    key: str | None = None
    for line in lines[1:end]:
        if key is not None and (line.startswith((" ", "\t")) or not line.strip()):
            data[key] = (data[key] + " " + line.strip()).strip()
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip():
            key = None
            continue
        key = name.strip()
        value = value.strip()
        data[key] = "" if value in (">", "|", ">-", "|-") else value.strip("\"'")
    body = "\n".join(lines[end + 1 :]).strip("\n")
    return data, body


def skill_dirs(project_root: Path, home: Path) -> list[Path]:
    """Where skills live, in priority order (project before global)."""
    return [
        project_root / ".jupyter-agent" / "skills",
        project_root / ".claude" / "skills",
        home / ".config" / "jupyter-agent" / "skills",
    ]


def discover_skills(project_root: Path, home: Path) -> list[SkillInfo]:
    """All skills by name, sorted; the first folder that defines a name wins."""
    found: dict[str, SkillInfo] = {}
    for folder in skill_dirs(project_root, home):
        if not folder.is_dir():
            continue
        for file in sorted(folder.glob("*/SKILL.md")):
            try:
                meta, _ = split_frontmatter(file.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
            name = meta.get("name") or file.parent.name
            if name not in found:
                found[name] = SkillInfo(name, meta.get("description", ""), file)
    return sorted(found.values(), key=lambda s: s.name)


def description_for(project_root: Path, home: Path) -> str:
    """The tool description with the skills available now listed at the end."""
    skills = discover_skills(project_root, home)
    if not skills:
        listing = "No skills are installed right now."
    else:
        items = [
            f"  <skill>\n    <name>{s.name}</name>\n"
            f"    <description>{s.description}</description>\n  </skill>"
            for s in skills
        ]
        listing = "<available_skills>\n" + "\n".join(items) + "\n</available_skills>"
    return describe("skill") + "\n\n" + listing


class SkillArgs(BaseModel):
    name: str = Field(description="The name of the skill from available_skills (e.g. 'csv-cleaning')")


class SkillTool(Tool[SkillArgs]):
    name = "skill"
    mutates = False
    description = describe("skill")
    Args = SkillArgs

    def __init__(self, project_root: Path | None = None, home: Path | None = None) -> None:
        # None: the kernel's cwd (the notebook's folder) when specs are built; at run
        # time the session's own project root is used.
        self.project_root = project_root
        self.home = home

    def _home(self) -> Path:
        return self.home or Path.home()

    def spec(self) -> ToolSpec:
        spec = super().spec()
        root = self.project_root or Path.cwd()
        spec["function"]["description"] = description_for(root, self._home())
        return spec

    def permission_patterns(self, args: Any) -> list[str]:
        return [args.name]

    async def run(self, args: Any, ctx: ToolContext) -> ToolResult:
        skills = {s.name: s for s in discover_skills(ctx.project_root, self._home())}
        skill = skills.get(args.name)
        if skill is None:
            names = ", ".join(skills) or "none (add .jupyter-agent/skills/<name>/SKILL.md)"
            raise ToolError(f"Unknown skill '{args.name}'. Available skills: {names}")
        await ctx.permit("skill", [args.name], f"Load skill {args.name}")
        _, body = split_frontmatter(skill.path.read_text(encoding="utf-8", errors="replace"))
        base = skill.path.parent
        output = f"## Skill: {skill.name}\n\n**Base directory**: {base}\n\n{body}"
        meta = {"name": skill.name, "dir": str(base)}
        return ToolResult(output=output, title=f"Loaded skill: {skill.name}", metadata=meta)
