"""Permissions: ``allow | ask | deny`` per tool and pattern, and waiting for the user's answer.

Rules merge defaults → agent rules → config ``permission`` → config ``agent.<name>``.
The admin's rules (``/etc/jupyter-agent/config.json``) are also a floor: an action is
never looser than what they alone say, whatever the merged rules say.
For a pattern map the most specific matching pattern wins (most literal characters;
ties go to the later rule). "ask" publishes ``permission.asked`` and waits for
``reply()``; headless runs cannot ask, so they refuse with a note saying how to allow.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Literal

from jupyter_agent.agent.ports import PermissionContext
from jupyter_agent.core import ids
from jupyter_agent.core.agents import get_agent
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.events import (
    PermissionAsked,
    PermissionReplied,
    PermissionReply,
    PermissionRequest,
)
from jupyter_agent.tools.base import Action, PermissionDenied, PermissionQuestion

Rule = Action | dict[str, Action]
DEFAULTS: dict[str, Rule] = {"*": "allow", "external_directory": "ask", "doom_loop": "ask"}


def merge(*layers: dict[str, Rule] | None) -> dict[str, Rule]:
    """Later layers win; pattern maps for the same permission are merged key by key."""
    out: dict[str, Rule] = {}
    for layer in layers:
        for key, rule in (layer or {}).items():
            prev = out.get(key)
            if isinstance(rule, dict) and isinstance(prev, dict):
                out[key] = {**prev, **rule}
            else:
                out[key] = rule
    return out


def _specificity(pattern: str) -> int:
    return sum(1 for ch in pattern if ch not in "*?")


def _best(rules: dict[str, Action], value: str) -> tuple[str, Action] | None:
    """The pattern of ``rules`` that decides ``value`` (the most specific), and its action."""
    best: tuple[int, int, str, Action] | None = None
    for order, (pattern, action) in enumerate(rules.items()):
        if fnmatchcase(value, pattern) or (pattern.endswith(" *") and value == pattern[:-2]):
            key = (_specificity(pattern), order, pattern, action)
            if best is None or key[:2] >= best[:2]:
                best = key
    return (best[2], best[3]) if best else None


def _match_map(rules: dict[str, Action], value: str) -> Action | None:
    found = _best(rules, value)
    return found[1] if found else None


def rule_text(
    rules: dict[str, Rule], permission: str, patterns: list[str], default: Action | None, action: Action
) -> str:
    """Which rule gave ``action``, for the audit trail: ``bash "rm *"``, ``docs_*``, ``"*"``
    or ``default``. Mirrors ``_evaluate``'s choice of key (``exact`` questions included)."""
    wild = {k: k for k in rules if k != "*" and any(c in k for c in "*?")}
    key = permission if permission in rules else _match_map(wild, permission)  # type: ignore[arg-type]
    if key is None:
        return "default" if default else ('"*"' if "*" in rules else "default")
    rule = rules[key]
    if isinstance(rule, str):
        return key
    for value in patterns or ["*"]:
        found = _best(rule, value)
        if (found[1] if found else "allow") == action:
            return f'{key} "{found[0]}"' if found else "default"
    return key


class Ruleset(dict[str, Rule]):
    """Merged rules with the admin's floor beside them (``floor_file`` says whose)."""

    def __init__(
        self, rules: dict[str, Rule], floor: dict[str, Rule] | None = None, floor_file: str | None = None
    ) -> None:
        super().__init__(rules)
        self.floor: dict[str, Rule] = dict(floor or {})
        self.floor_file = floor_file

    def floor_action(self, permission: str, patterns: list[str], default: Action | None = None) -> Action:
        """What the floor alone says ("allow" when it says nothing). Its ``"*"`` counts except
        where the caller asks what rules written for a permission say (``default="allow"``)."""
        if not self.floor:
            return "allow"
        return _evaluate(self.floor, permission, patterns, "allow" if default == "allow" else None)


_STRICTNESS: dict[Action, int] = {"allow": 0, "ask": 1, "deny": 2}


def evaluate(
    rules: dict[str, Rule],
    permission: str,
    patterns: list[str],
    default: Action | None = None,
    exact: bool = False,
) -> Action:
    """deny if any pattern is denied, ask if any asks, else allow; never looser than the
    admin's floor when ``rules`` carries one (a ``Ruleset``)."""
    found = _evaluate(rules, permission, patterns, default, exact)
    if isinstance(rules, Ruleset) and rules.floor:
        return max(found, rules.floor_action(permission, patterns, default), key=_STRICTNESS.__getitem__)
    return found


def _evaluate(
    rules: dict[str, Rule],
    permission: str,
    patterns: list[str],
    default: Action | None = None,
    exact: bool = False,
) -> Action:
    """The rule is the exact key, else the most specific wildcard key (``docs_*``; not when
    ``exact``), else ``default`` when given (MCP tools: "ask"), else ``"*"``."""
    wild = {k: k for k in rules if k != "*" and any(c in k for c in "*?")}
    key = permission if permission in rules else None if exact else _match_map(wild, permission)  # type: ignore[arg-type]
    rule = rules[key] if key is not None else (default or rules.get("*", "allow"))
    if isinstance(rule, str):
        return rule
    results = [_match_map(rule, p) or "allow" for p in (patterns or ["*"])]
    actions: tuple[Action, ...] = ("deny", "ask")
    for action in actions:
        if action in results:
            return action
    return "allow"


GUARDS = frozenset({"edit", "write", "notebook_edit", "python", "bash_write", "mcp_write", "task"})
"""What keeps a read-only agent (plan, explore) read-only: a global rule written for the
build agent (``"write": "allow"``) must not loosen it; ``agent.<name>.permission`` may."""


def build_ruleset(
    config: Any, agent_rules: dict[str, Rule] | None = None, agent: str = "build", kernel: str | None = None
) -> Ruleset:
    """``kernel``: the kind of kernel the run is in (``kernels.<kind>.permission`` applies)."""
    agent_cfg = config.agent.get(agent) if config is not None else None
    guards: dict[str, Rule] = {k: v for k, v in (agent_rules or {}).items() if k in GUARDS and v != "allow"}
    by_kernel = getattr(config, "kernel_permission", None)
    merged = merge(
        DEFAULTS,
        agent_rules,
        config.permission if config is not None else None,
        by_kernel(kernel) if by_kernel else None,
        guards,
        agent_cfg.permission if agent_cfg and agent_cfg.permission else None,
    )
    floor = getattr(config, "permission_floor", None)
    return Ruleset(merged, floor(agent, kernel) if floor else None, getattr(config, "admin_file", None))


@dataclass
class _Pending:
    request: PermissionRequest
    future: asyncio.Future[PermissionReply]
    loop: asyncio.AbstractEventLoop
    message: str = ""
    """Why the user rejected it (sent to the model with the rejection)."""


@dataclass
class PermissionManager:
    """Evaluates rules per agent and holds the requests waiting for a user's answer.

    Implements ``PermissionAsker``; whether a run may wait for the user travels with each
    question (``PermissionContext.interactive``), so runs never change each other's mode."""

    bus: Bus
    config: Any = None
    headless_reply: Literal["once", "reject"] = "reject"
    kernel: str | None = None
    """The kind of kernel this runtime lives in ("contained", "ordinary"; None: no kernel)."""
    _pending: dict[str, _Pending] = field(default_factory=dict)
    _always: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def rules_for(self, agent: str) -> Ruleset:
        """The merged rules of ``agent``; an unknown name raises (never another agent's rules)."""
        return build_ruleset(self.config, get_agent(agent).permission, agent, self.kernel)

    def action(
        self, agent: str, permission: str, value: str, session_id: str | None = None, specific: bool = False
    ) -> Action:
        """What the rules written for ``permission`` say about one value, without asking
        (answers of "always" count). The catch-all ``"*"`` is not used: with ``"*": "ask"``
        a search the user allowed must not withhold every file it finds. ``specific``: a
        pattern that is only wildcards (``{"*": "deny"}``) does not count either."""
        rules = self.rules_for(agent)
        if specific and isinstance(rules.get(permission), dict):
            named = {p: a for p, a in rules[permission].items() if _specificity(p)}  # type: ignore[union-attr]
            rules = Ruleset({**rules, permission: named}, rules.floor, rules.floor_file)  # the floor holds
        found = evaluate(rules, permission, [value], default="allow")
        remembered = self._always.get(session_id or "", [])
        if found == "ask" and any(p == permission and fnmatchcase(value, g) for p, g in remembered):
            return "allow"
        return found

    def decide(self, agent: str, question: PermissionQuestion) -> Action:
        """What the rules say about one question, before any answer of the user counts."""
        return _decide(self.rules_for(agent), question)

    async def ask(self, who: PermissionContext, question: PermissionQuestion) -> None:
        """Return when allowed; raise PermissionDenied with a user-facing reason otherwise.
        ``who.decisions`` (when set) gets how it was decided, for the audit trail."""
        if who.decisions is None:
            await self._ask(who, question, {})
            return
        note: dict[str, Any] = {"permission": question.permission, "patterns": list(question.patterns)}
        try:
            await self._ask(who, question, note)
        except PermissionDenied:
            note.setdefault("decision", "denied")
            raise
        finally:
            who.decisions.append(note)

    async def _ask(self, who: PermissionContext, question: PermissionQuestion, note: dict[str, Any]) -> None:
        permission, patterns, title = question.permission, question.patterns, question.title
        metadata, session_id = question.metadata, who.session_id
        rules = self.rules_for(who.agent)
        action = _decide(rules, question)
        unsure = question.unsure
        floor = rules.floor_action(permission, patterns, question.default)
        admin = rules.floor_file if floor == action else None  # the admin's rule decides
        by_admin = bool(admin) and action != "allow"  # the floor lets through what it says nothing of
        note["rule"] = rule_text(
            rules.floor if by_admin else rules, permission, patterns, question.default, action
        )
        note["by"] = "admin" if by_admin else "config"
        if action == "allow":
            note["decision"] = "allowed"
            return
        shown = ", ".join(patterns) or permission
        why = unsure or metadata.get("reason")
        if why:
            shown = f"{shown} ({why})"
        if action == "deny" and admin:
            raise PermissionDenied(
                f"Permission '{permission}' for {shown} is denied by the administrator's settings "
                f"({admin}); it cannot be allowed here. Do not retry it; tell the user."
            )
        if action == "deny":
            raise PermissionDenied(
                f"Permission '{permission}' for {shown} is denied by the configuration. "
                f'Change "permission" → "{permission}" in jupyter-agent.json to allow it.'
            )
        if question.always_ask:
            note["rule"] = "protected path"
        remembered = self._always.get(session_id, [])
        if patterns and all(
            any(p == permission and fnmatchcase(v, g) for p, g in remembered) for v in patterns
        ):
            note.update(decision="asked", answer="always (earlier)")
            return
        if not who.interactive:
            note["decision"] = "denied"
            note["by"] = "headless"  # nobody can answer: refused (or let through by the runner's setting)
            if admin:  # not even a run that approves everything by itself
                raise PermissionDenied(
                    f"Permission '{permission}' for {shown} needs approval (the administrator's "
                    f"settings in {admin} require it), and this run is not interactive. Run it "
                    "where you can approve it (a notebook with the widget or the side panel)."
                )
            if self.headless_reply == "once" and not question.always_ask:
                note.update(decision="asked", answer="once (headless)")
                return
            if question.always_ask:
                raise PermissionDenied(
                    f"Permission '{permission}' for {shown} needs the user's approval every time, "
                    "and this run is not interactive: protected paths always ask, no rule allows "
                    "them (docs/security.md). Ask the user to make this change."
                )
            example = json.dumps({"permission": {permission: "allow"}})
            raise PermissionDenied(
                f"Permission '{permission}' for {shown} needs approval, and this run is not "
                f"interactive. Allow it in jupyter-agent.json, e.g. {example}"
            )
        loop = asyncio.get_running_loop()
        request = PermissionRequest(
            id=ids.ascending("per"),
            session_id=session_id,
            message_id=who.message_id,
            call_id=who.call_id,
            permission=permission,
            patterns=patterns,
            title=title,
            metadata={k: v for k, v in metadata.items() if _jsonable(v)},
        )
        future: asyncio.Future[PermissionReply] = loop.create_future()
        pending = self._pending[request.id] = _Pending(request, future, loop)
        self.bus.publish(PermissionAsked(request=request))
        try:
            reply = await future
        finally:
            self._pending.pop(request.id, None)
        note.update(decision="asked", answer=reply)
        if reply != "reject":
            question.answered = reply
        if reply == "always":
            self._always.setdefault(session_id, []).extend((permission, p) for p in patterns)
        if reply == "reject" and pending.message:
            raise PermissionDenied(
                f"The user rejected permission '{permission}' for {shown} with this feedback: "
                f"{pending.message}"
            )
        if reply == "reject":
            raise PermissionDenied(
                f"The user rejected permission '{permission}' for {shown}. Do not retry the same "
                "action; ask the user how to proceed."
            )

    def reply(self, request_id: str, reply: PermissionReply, message: str = "") -> bool:
        """Answer a pending request (from the widget or panel, any thread); ``message`` is the
        user's reason for a rejection, which the model gets instead of a bare refusal."""
        pending = self._pending.get(request_id)
        if pending is None:
            return False
        if reply == "reject":
            pending.message = message.strip()

        def resolve() -> None:
            if not pending.future.done():
                pending.future.set_result(reply)

        pending.loop.call_soon_threadsafe(resolve)
        self.bus.publish(
            PermissionReplied(session_id=pending.request.session_id, request_id=request_id, reply=reply)
        )
        return True

    def pending(self, session_id: str | None = None) -> list[PermissionRequest]:
        return [
            p.request
            for p in self._pending.values()
            if session_id is None or p.request.session_id == session_id
        ]

    def cancel_all(self, session_id: str | None = None) -> int:
        """Reject every open request of a session (Stop, abort)."""
        count = 0
        for p in list(self._pending.values()):
            if session_id is None or p.request.session_id == session_id:
                count += self.reply(p.request.id, "reject")
        return count


def _decide(rules: Ruleset, question: PermissionQuestion) -> Action:
    permission = question.permission
    action = evaluate(rules, permission, question.patterns, question.default, question.exact)
    if question.unsure and action == "allow" and rules.get(permission) != "allow":
        action = "ask"  # cannot be judged (unparseable): only a plain "allow" lets it through
    if question.always_ask and action == "allow":
        action = "ask"  # a protected path: no rule the agent could have written lets it through
    return action


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True
