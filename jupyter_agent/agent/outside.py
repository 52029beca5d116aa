"""Stored paths that would take a write outside the project (import, revert, unrevert).

Revert writes back files named in the session's patch parts and its snapshot. Those
names come from storage, which an imported export fills: a crafted export could name
``~/.bashrc``. Every such path is checked with the file tools' rule: a path whose real
location (symlinks resolved) leaves the project root needs ``external_directory``, and
revert cannot ask, so only an explicit "allow" lets it through.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jupyter_agent.agent.permissions import evaluate
from jupyter_agent.core.messages import MessageWithParts, PatchPart


def is_outside(path: str, project_root: Path) -> bool:
    """True for a relative path (stored paths are absolute) or one leaving ``project_root``."""
    raw = Path(path)
    if not raw.is_absolute():
        return True
    root = project_root.resolve()
    real = raw.resolve()
    return real != root and root not in real.parents


def external_pattern(path: str) -> str:
    """What ``external_directory`` rules are matched against: the file's folder + ``/*``."""
    return str(Path(path).resolve().parent / "*")


def refused_paths(paths: Iterable[str], project_root: Path, rules: dict[str, Any]) -> list[str]:
    """The paths outside the project whose ``external_directory`` rule is not "allow"."""
    out: list[str] = []
    for path in paths:
        if path in out or not is_outside(path, project_root):
            continue
        if (
            not Path(path).is_absolute()
            or evaluate(rules, "external_directory", [external_pattern(path)]) != "allow"
        ):
            out.append(path)
    return out


def drop_outside_changes(
    messages: list[MessageWithParts], project_root: Path, rules: dict[str, Any]
) -> tuple[list[MessageWithParts], list[str]]:
    """Imported messages without the file (and notebook cell) changes that point outside the
    project, and the paths dropped (an import never gives revert a way out of the project)."""
    dropped: list[str] = []
    out: list[MessageWithParts] = []
    for m in messages:
        parts = []
        for p in m.parts:
            if isinstance(p, PatchPart):
                named = [c.path for c in p.files] + [c.notebook for c in p.cells]
                bad = set(refused_paths(named, project_root, rules))
                if bad:
                    dropped.extend(x for x in dict.fromkeys(named) if x in bad and x not in dropped)
                    files = [c for c in p.files if c.path not in bad]
                    cells = [c for c in p.cells if c.notebook not in bad]
                    p = p.model_copy(update={"files": files, "cells": cells})
            parts.append(p)
        out.append(m.model_copy(update={"parts": parts}))
    return out, dropped
