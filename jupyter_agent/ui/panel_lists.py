"""What the side panel lists and looks up: the sessions (its picker), the models (its model
picker), the cell a Fix is for."""

from __future__ import annotations

from typing import Any

from jupyter_agent.agent.runtime import Runtime
from jupyter_agent.agent.title import needs_title
from jupyter_agent.kernel.cell_errors import CellError, CellErrors
from jupyter_agent.kernel.fix import find_error, from_frontend
from jupyter_agent.ui import panel_protocol as wire


def session_list(runtime: Runtime) -> list[wire.SessionInfo]:
    """The notebook's sessions, newest first; ``busy`` while a run holds one."""
    ordered = sorted(runtime.list_sessions(), key=lambda s: s.time.updated, reverse=True)
    return [
        wire.SessionInfo(
            id=s.id,
            title=s.title,
            updated=s.time.updated,
            busy=runtime.busy(s.id),
            created=s.time.created,
            untitled=needs_title(s.title),
        )
        for s in ordered
    ]


def configured_models(config: Any, current: str) -> list[str]:
    """What the panel's model picker offers: the one in use, then every configured one."""
    found = [current, config.model, *config.models, *(a.model for a in config.agent.values())]
    return list(dict.fromkeys(m for m in found if m))


def fix_target(errors: CellErrors, request: wire.FixRequest) -> CellError:
    """The failed cell a Fix is for: the front end's cell and error output, or (``/fix``)
    the kernel's record (``NothingToFix`` says why there is none)."""
    if request.source is None:
        return find_error(errors, request.cell)
    return from_frontend(
        request.source,
        request.ename,
        request.evalue,
        request.traceback,
        request.execution_count,
        request.cell_id,
    )
