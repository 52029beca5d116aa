"""The system prompt (SPEC "System prompt"): agent prompt → environment → instructions → skills."""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")


@dataclass(frozen=True)
class NotebookInfo:
    path: str
    kernel: str
    """Kernel language and version, e.g. ``python 3.11.7``."""
    cells: int | None = None


def environment_block(
    *,
    model: str,
    cwd: str,
    root: str,
    is_git: bool,
    platform: str,
    date: str,
    notebook: NotebookInfo | None = None,
) -> str:
    provider, _, name = model.partition("/")
    if not name:
        provider, name = "", provider
    lines = [
        f"You are powered by the model named {name}. The exact model ID is {model}",
        "Here is some useful information about the environment you are running in:",
        "<env>",
        f"  Working directory: {cwd}",
        f"  Workspace root folder: {root}",
        f"  Is directory a git repo: {'yes' if is_git else 'no'}",
        f"  Platform: {platform}",
        f"  Today's date: {date}",
        "</env>",
    ]
    if notebook is not None:
        cells = "unknown" if notebook.cells is None else str(notebook.cells)
        lines += [
            "<notebook>",
            f"  Path: {notebook.path}",
            f"  Kernel: {notebook.kernel}",
            f"  Cells: {cells}",
            "</notebook>",
        ]
    return "\n".join(lines)


def find_instruction_files(
    *,
    start_dir: Path,
    root: Path,
    home: Path,
    config_instructions: list[str] | None = None,
    skip_global: bool = False,
    skip_project: bool = False,
) -> list[Path]:
    """Global file, then the nearest-first matches of the first name found, then config ones."""
    found: list[Path] = []
    if not skip_global:
        for candidate in (home / ".config" / "jupyter-agent" / "AGENTS.md", home / ".claude" / "CLAUDE.md"):
            if candidate.is_file():
                found.append(candidate)
                break
    if not skip_project:
        start, top = start_dir.resolve(), root.resolve()
        folders = [start]
        if top in start.parents:
            for parent in start.parents:
                folders.append(parent)
                if parent == top:
                    break
        for name in INSTRUCTION_NAMES:
            matches = [f / name for f in folders if (f / name).is_file()]
            if matches:
                found.extend(matches)
                break
    for pattern in config_instructions or []:
        expanded = Path(pattern).expanduser()
        if not expanded.is_absolute():
            expanded = root / expanded
        for match in sorted(glob.glob(str(expanded), recursive=True)):
            path = Path(match)
            if path.is_file() and path not in found:
                found.append(path)
    return found


def build_system_prompt(
    agent_prompt: str,
    environment: str,
    instructions: list[tuple[str, str]],
    skills: list[tuple[str, str]],
) -> str:
    parts = [agent_prompt, environment]
    parts += [f"Instructions from: {path}\n{content}" for path, content in instructions]
    if skills:
        listing = "\n".join(f"- {name}: {description}" for name, description in skills)
        parts.append("Skills you can load with the skill tool when a task matches:\n" + listing)
    return "\n".join(parts)
