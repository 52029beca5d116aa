"""Tab in a ``%agent`` line or ``%%agent`` cell: ``@`` mentions and ``/server:prompt``.

IPython asks every matcher on each Tab; this one answers only inside an agent cell, with what
the side panel offers (``completions.py``: variables, cells, files, MCP resources of started
servers) and the MCP servers' prompts, and then alone. Light to import: ``%load_ext``
registers it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from IPython.core.completer import CompletionContext, SimpleCompletion, SimpleMatcherResult, context_matcher

_AT = re.compile(r"(?:^|\s)(@[\w:./-]*)$")
_SLASH_LINE = re.compile(r"^\s*%%?agent\s+(?:--\S+\s+)*(/[\w:.-]*)$")
_SLASH_BODY = re.compile(r"^\s*(/[\w:.-]*)$")


def _in_agent_cell(full_text: str, line: str) -> bool:
    return full_text.lstrip().startswith("%%agent") or line.lstrip().startswith("%agent")


def cell_completions(agent: Any, full_text: str, line_before: str, token: str) -> list[str] | None:
    """What Tab offers in a ``%agent`` line or ``%%agent`` cell: ``@`` mentions (as in the side
    panel, MCP resources of started servers included) and ``/server:prompt``; each is the rest
    of the ``token`` IPython will replace. None: not ours (IPython's own completions apply)."""
    if not _in_agent_cell(full_text, line_before.rsplit("\n", 1)[-1]):
        return None
    runtime = getattr(agent, "_runtime", None)  # completion never builds the runtime
    manager = runtime.services.mcp if runtime is not None else None
    servers = manager.servers if manager is not None else {}
    mention = _AT.search(line_before)
    in_body = full_text.lstrip().startswith("%%agent") and "\n" in full_text
    slash = _SLASH_LINE.match(line_before) or (_SLASH_BODY.match(line_before) if in_body else None)
    if mention is not None:
        # the mention helpers (pydantic, the tools' modules) load on the first Tab, not at %load_ext
        from jupyter_agent.kernel.completions import complete

        typed = mention.group(1)
        root = runtime.working_dir if runtime is not None else Path.cwd()
        offered = [f"@{label}" for label, _ in complete(typed[1:], agent.shell, root, servers)]
    elif slash is not None and servers:
        typed = slash.group(1)
        offered = [f"/{name}:{p.name}" for name, s in servers.items() for p in s.prompts]
    else:
        return None
    before = typed[: len(typed) - len(token)] if token and typed.endswith(token) else typed
    return [c[len(before) :] for c in offered if c.startswith(typed)]


def install(shell: Any, agent: Any) -> None:
    """Register the ``%agent`` completions with IPython's completer (Tab in a cell)."""

    @context_matcher()
    def agent_mentions(context: CompletionContext) -> SimpleMatcherResult:
        found = cell_completions(agent, context.full_text, context.text_until_cursor, context.token)
        if found is None:
            return {"completions": [], "suppress": False}
        return {"completions": [SimpleCompletion(text, type="mention") for text in found], "suppress": True}

    if agent_mentions not in shell.Completer.custom_matchers:
        shell.Completer.custom_matchers.append(agent_mentions)
