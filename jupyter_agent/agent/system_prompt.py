"""Gathers what the system prompt needs from the world (files, git, kernel), once per loop.

``context/system.py`` formats; this module does the reading: instruction files, skills,
the notebook's kernel and cell count. The loop calls it once per run and agent, so a
step does not re-read the disk.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from jupyter_agent.config import Config
from jupyter_agent.context import system
from jupyter_agent.core.agents import AgentInfo
from jupyter_agent.prompts import load_prompt
from jupyter_agent.tools.services import Services
from jupyter_agent.tools.skill import discover_skills


class PromptSource(Protocol):
    """What the system prompt reads of a workspace (``Workspace`` passes itself); named here
    so that this module does not import the workspace that builds runs from it."""

    @property
    def config(self) -> Config: ...

    @property
    def project_root(self) -> Path: ...

    @property
    def working_dir(self) -> Path: ...

    @property
    def notebook_path(self) -> str | None: ...

    @property
    def services(self) -> Services: ...

    @property
    def notices(self) -> list[str]: ...


MAX_INSTRUCTION_BYTES = 200_000
"""Instruction files in all (every request carries them in the system prompt)."""


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


def agent_prompt(agent: AgentInfo) -> str:
    """The prompt file of an agent, or literal text given in config."""
    try:
        return load_prompt(agent.prompt)
    except FileNotFoundError:
        return agent.prompt


@lru_cache(maxsize=32)
def _read(path: str, mtime: float, limit: int) -> str:
    with open(path, "rb") as fh:
        return fh.read(limit).decode("utf-8", errors="replace")


def _read_all(files: list[Path], skipped: list[str]) -> list[tuple[str, str]]:
    """The files' text, ``MAX_INSTRUCTION_BYTES`` in all (every request carries it); what
    does not fit or cannot be read is said in ``skipped``."""
    out: list[tuple[str, str]] = []
    room = MAX_INSTRUCTION_BYTES
    for path in files:
        try:
            info = path.stat()
            if not path.is_file():
                continue
            if info.st_size > room:
                skipped.append(
                    f"instructions: {path} left out ({info.st_size:,} bytes; the instruction files "
                    f"may hold {MAX_INSTRUCTION_BYTES:,} bytes in all)"
                )
                continue
            text = _read(str(path), info.st_mtime, room)
        except OSError as exc:
            skipped.append(f"instructions: {path} cannot be read ({exc.strerror or exc})")
            continue
        room -= len(text.encode("utf-8", errors="replace"))
        out.append((str(path), text))
    return out


def _notebook_info(runtime: PromptSource) -> system.NotebookInfo | None:
    if not runtime.notebook_path:
        return None
    cells: int | None = None
    path = Path(runtime.notebook_path)
    if path.exists():
        try:
            # nbformat (and its JSON Schema) loads only when the notebook is summarised
            import nbformat

            cells = len(nbformat.read(path, as_version=4).cells)
        except Exception:
            cells = None

    return system.NotebookInfo(
        path=str(path),
        kernel=f"python {platform.python_version()}"
        if runtime.services.shell is not None
        else sys.executable,
        cells=cells,
    )


def build_for_runtime(runtime: PromptSource, agent: AgentInfo, model: str) -> str:
    """Agent prompt → environment → instruction files → skills (SPEC "System prompt")."""
    root = runtime.project_root
    env = system.environment_block(
        model=model,
        cwd=str(runtime.working_dir),
        root=str(root),
        is_git=(root / ".git").exists(),
        platform=platform.system().lower(),
        date=dt.date.today().strftime("%a %b %d %Y"),
        notebook=_notebook_info(runtime),
    )
    skipped: list[str] = []
    files = system.find_instruction_files(
        start_dir=runtime.working_dir,
        root=root,
        home=Path.home(),
        config_instructions=runtime.config.instructions,
        skip_global=_truthy("JUPYTER_AGENT_DISABLE_GLOBAL_INSTRUCTIONS"),
        skip_project=_truthy("JUPYTER_AGENT_DISABLE_PROJECT_INSTRUCTIONS"),
        skipped=skipped,
    )
    instructions = _read_all(files, skipped)
    for note in skipped:  # told with the run's other notices
        if note not in runtime.notices:
            runtime.notices.append(note)
    skills = [(s.name, s.description) for s in discover_skills(root, Path.home())]
    return system.build_system_prompt(agent_prompt(agent), env, instructions, skills)
