"""Fix with agent for a verification: the report goes to the ``fix`` agent.

The first divergence leads the request (which cell, what differs, which names are hidden
state); the whole report follows as a fenced block (data, not instructions). The ``fix``
agent asks before each notebook edit, so the user approves every cell it adds or changes.
"""

from __future__ import annotations

from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.fence import fence
from jupyter_agent.core.redaction import redact
from jupyter_agent.repro.report import VerifyReport


class NothingToVerifyFix(UsageFailure, ValueError):
    """No verification report to hand over, or one that found nothing."""


def verify_fix_prompt(report: VerifyReport | None) -> tuple[str, str]:
    """(what the user sees, the whole prompt) for the latest verification."""
    if report is None:
        raise NothingToVerifyFix(
            "No verification has run in this kernel: run %agent verify first (or /verify in the panel)."
        )
    first = report.first_divergence()
    if first is None:
        raise NothingToVerifyFix(
            "The last verification found nothing to fix: the notebook reproduced."
            if report.reproducible
            else f"The last verification did not finish ({report.stopped}): run %agent verify again."
        )
    names = first.hidden + first.agent_changed
    named = f" It depends on hidden state: {', '.join(f'`{n}`' for n in names)}." if names else ""
    words = (
        f"Make this notebook reproducible: run top to bottom in a fresh kernel, {first.label} "
        f"{first.status} ({first.detail() or first.status}).{named}\n\n"
        "Find the cause, explain it in a sentence or two, then fix the notebook with notebook_read "
        "and notebook_edit: add as cells the code that set hidden state (the agent's own code "
        "included), or move or fix the cells that run out of order. Do not edit saved outputs; "
        "if the difference is expected (randomness, time, the network), say so instead."
    )
    return redact(words), redact(words + "\n\n" + fence("verify_report", report.for_agent(), ref="report"))
