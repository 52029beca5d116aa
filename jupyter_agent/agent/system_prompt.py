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
from typing import TYPE_CHECKING

from jupyter_agent.agent.agents import AgentInfo
from jupyter_agent.context import system
from jupyter_agent.prompts import load_prompt
from jupyter_agent.tools.skill import discover_skills

if TYPE_CHECKING:
    from jupyter_agent.agent.workspace import Workspace


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")


def agent_prompt(agent: AgentInfo) -> str:
    """The prompt file of an agent, or literal text given in config."""
    try:
        return load_prompt(agent.prompt)
    except FileNotFoundError:
        return agent.prompt


@lru_cache(maxsize=32)
def _read(path: str, mtime: float) -> str:
    return Path(path).read_text(errors="replace")


def _notebook_info(runtime: Workspace) -> system.NotebookInfo | None:
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


def build_for_runtime(runtime: Workspace, agent: AgentInfo, model: str) -> str:
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
    files = system.find_instruction_files(
        start_dir=runtime.working_dir,
        root=root,
        home=Path.home(),
        config_instructions=runtime.config.instructions,
        skip_global=_truthy("JUPYTER_AGENT_DISABLE_GLOBAL_INSTRUCTIONS"),
        skip_project=_truthy("JUPYTER_AGENT_DISABLE_PROJECT_INSTRUCTIONS"),
    )
    instructions = [(str(p), _read(str(p), p.stat().st_mtime)) for p in files if p.is_file()]
    skills = [(s.name, s.description) for s in discover_skills(root, Path.home())]
    return system.build_system_prompt(agent_prompt(agent), env, instructions, skills)
