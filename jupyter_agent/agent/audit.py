"""One tool call as a line of the admin's audit trail (written by ``storage/audit_log.py``).

What a platform team asks afterwards: who ran what, in which notebook and session, with
which arguments (redacted, cut), how it was decided (allowed by a rule, asked and the
answer, or denied and by which rule), how it ended and what the step that asked for it
cost. The decision of a call that asked several questions (a path outside the project,
then the command) is its strictest: a refusal, else the last answer, else allowed.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from jupyter_agent.core.messages import AnyMessage, AssistantMessage, ToolPart
from jupyter_agent.core.redaction import redact, redact_value
from jupyter_agent.storage.audit_log import cap, capped_arguments

ERROR_CAP = 300


def _outcome(part: ToolPart) -> tuple[str, str | None]:
    state = part.state
    if state.status == "completed":
        return "completed", None
    if state.status != "error":
        return state.status, None
    meta = state.metadata or {}
    kind = "aborted" if meta.get("interrupted") else "rejected" if meta.get("rejected") else "error"
    return kind, redact(state.error.splitlines()[0] if state.error else "")[:ERROR_CAP]


def decision(decisions: list[dict[str, Any]], outcome: str, error: str | None) -> dict[str, Any]:
    """``{"decision": "allowed" | "asked" | "denied" | "not run", …}`` for the whole call."""
    denied = [d for d in decisions if d.get("decision") == "denied"]
    asked = [d for d in decisions if d.get("decision") == "asked"]
    if denied or (outcome == "rejected" and not asked):
        first = denied[0] if denied else {}
        how = {"decision": "denied", "rule": first.get("rule") or "", "by": first.get("by") or "refused"}
        if not denied:  # refused before any rule was asked (a hidden credential store, a refusal)
            how["rule"] = (error or "")[:120]
        return how
    if asked:
        last = asked[-1]
        return {"decision": "asked", "answer": last.get("answer"), "rule": last.get("rule")}
    if outcome == "error" and error and not decisions and _never_ran(error):
        return {"decision": "not run"}
    return {"decision": "allowed"}


def _never_ran(error: str) -> bool:
    """Calls the runner refused before any permission question (unknown tool, bad arguments)."""
    return error.startswith(("Unknown tool", "Invalid arguments", "Stopped:", "Skipped:")) or "JSON" in error


def audit_record(
    part: ToolPart, agent: str, decisions: list[dict[str, Any]], step: AnyMessage | None
) -> dict[str, Any]:
    """The audit line of one finished tool call (``step``: the assistant message that made it)."""
    outcome, error = _outcome(part)
    record: dict[str, Any] = {
        "time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
        "session": part.session_id,
        "message": part.message_id,
        "agent": agent,
        "tool": part.tool,
        "call": part.call_id,
        "arguments": capped_arguments(redact_value(dict(part.state.input or {}))),
        **decision(decisions, outcome, error),
        "outcome": outcome,
    }
    if error:
        record["error"] = error
    if decisions:
        record["permissions"] = [
            {**d, "patterns": cap([redact(str(p)) for p in d.get("patterns", [])])} for d in decisions
        ]
    if isinstance(step, AssistantMessage):
        record["model"] = step.model
        record["step_cost_usd"] = None if step.cost_unknown and not step.cost else step.cost
        if step.cost_unknown:
            record["cost_unknown"] = True
    return record
