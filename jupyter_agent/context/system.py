"""The system prompt (SPEC "System prompt"): agent prompt → environment → instructions → skills."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from jupyter_agent.core.globs import PatternError, glob_matcher

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "CONTEXT.md")
MAX_INSTRUCTION_FILES = 50
"""Files the ``instructions`` patterns may bring in, all patterns together."""
INSTRUCTION_WALK_S = 2.0
"""Time the ``instructions`` patterns may spend walking folders, all together."""
_NOT_WALKED = frozenset(
    {".git", "node_modules", ".venv", "__pycache__", ".jupyter-agent", ".ipynb_checkpoints"}
)


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
    skipped: list[str] | None = None,
) -> list[Path]:
    """Global file, then the nearest-first matches of the first name found, then config ones.

    The config patterns are bounded (``MAX_INSTRUCTION_FILES``, ``INSTRUCTION_WALK_S``): what
    they leave out is said in ``skipped``."""
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
    deadline = time.monotonic() + INSTRUCTION_WALK_S
    notes = skipped if skipped is not None else []
    before = len(found)
    for pattern in config_instructions or []:
        room = MAX_INSTRUCTION_FILES - (len(found) - before)
        if room <= 0:
            notes.append(f"instructions {pattern!r}: not read, {MAX_INSTRUCTION_FILES} files are in already")
            continue
        matches, note = _pattern_files(pattern, root, deadline, room)
        if note:
            notes.append(f"instructions {pattern!r}: {note}")
        found.extend(p for p in matches if p not in found)
    return found


def _split(pattern: str, root: Path) -> tuple[Path, str]:
    """The folder before the first wildcard, and the pattern below it."""
    expanded = Path(pattern).expanduser()
    if not expanded.is_absolute():
        expanded = root / expanded
    parts = expanded.as_posix().split("/")
    cut = next((i for i, part in enumerate(parts) if any(c in part for c in "*?[{")), len(parts))
    return Path("/".join(parts[:cut]) or "/"), "/".join(parts[cut:])


def _pattern_files(pattern: str, root: Path, deadline: float, room: int) -> tuple[list[Path], str | None]:
    """Files matching one ``instructions`` pattern, at most ``room`` of them, until ``deadline``."""
    base, rest = _split(pattern, root)
    if not rest:
        return ([base] if base.is_file() else []), None
    try:
        matches = glob_matcher(rest)
    except PatternError as exc:
        return [], f"not used: {exc}"
    deep = "/" in rest or "**" in rest
    found: list[Path] = []
    for folder, dirs, names in os.walk(base):
        if time.monotonic() > deadline:
            return sorted(found), f"the walk stopped after {INSTRUCTION_WALK_S:g} s; {len(found)} files read"
        dirs[:] = sorted(d for d in dirs if d not in _NOT_WALKED) if deep else []
        prefix = os.path.relpath(folder, base).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for name in sorted(names):
            path = Path(folder) / name
            if matches(prefix + name) and path.is_file():
                if len(found) >= room:
                    return sorted(found), f"more than {room} files match; the first {room} are read"
                found.append(path)
    return sorted(found), None


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
