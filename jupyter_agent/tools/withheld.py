"""Search results pass the ``read`` rules of the files they show (SPEC "Permissions").

A ``read`` deny on ``secrets/*`` must also keep those files out of ``grep``, ``glob`` and
``list``; otherwise a search is a way around the rule. ``grep`` shows file contents, so
it also withholds files whose reading would need approval (``read`` asks for them).
The model is told how many were withheld, never which.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from jupyter_agent.tools.base import ToolContext
from jupyter_agent.tools.paths import relative

log = logging.getLogger(__name__)


def hider(ctx: ToolContext, contents: bool = False) -> Callable[[Path], bool]:
    """A predicate: True for a file the model may not see here (safe to call from threads)."""
    hide = ("deny", "ask") if contents else ("deny",)
    roots = {ctx.project_root, ctx.project_root.resolve()}
    cache: dict[Path, bool] = {}

    def hidden(path: Path) -> bool:
        if path not in cache:
            try:
                names = {relative(path, root) for root in roots}
                hidden_store = ctx.services.guard.hides(path) is not None  # credentials (deny_read)
                cache[path] = hidden_store or any(ctx.rule("read", name) in hide for name in names)
            except Exception:  # a check that cannot read a name withholds that file
                log.error("The read rules could not be checked for %r", str(path), exc_info=True)
                cache[path] = True
        return cache[path]

    return hidden


def note(count: int, contents: bool = False) -> str:
    """The line that tells the model some results were withheld."""
    if not count:
        return ""
    what = "file was" if count == 1 else "files were"
    why = "deny reading them or need approval (use read to ask)" if contents else "deny reading them"
    return f"\n\n({count} {what} withheld: the permission rules {why}.)"
