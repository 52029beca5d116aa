"""What a configuration file would change, in words a Trust / Ignore question can show.

"analysis/jupyter-agent.json would switch the sandbox off and allow bash": the keys that
loosen the rules or the sandbox, start programs or send your work elsewhere are named one
by one; the rest are listed by key. Pure dict logic on the file as it would be merged (keys
the admin locked are already taken out: they would change nothing).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_ACTIONS = {"allow": "allow {}", "deny": "deny {}", "ask": "ask before {}"}
_SAID = ("sandbox", "permission", "agent", "kernels", "mcp", "api_base", "model", "protected", "instructions")


def _rules(rules: Mapping[str, Any], who: str = "") -> list[str]:
    out: list[str] = []
    for tool, rule in rules.items():
        if isinstance(rule, str):
            out.append(_ACTIONS.get(rule, "set {}").format(tool) + who)
        elif isinstance(rule, Mapping):
            shown = ", ".join(f"{pattern!r}: {action}" for pattern, action in list(rule.items())[:3])
            more = " …" if len(rule) > 3 else ""
            out.append(f"set the {tool} rules ({shown}{more}){who}")
    return out


def _sandbox(box: Mapping[str, Any], before: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    if box.get("enabled") is False and before.get("enabled", True) is not False:
        out.append("switch the sandbox off")
    if box.get("network") is True and before.get("network", True) is False:
        out.append("give commands the network")
    if box.get("network") is False:
        out.append("take the network from commands")
    if box.get("writable"):
        out.append(f"let commands write {', '.join(map(str, box['writable']))}")
    if "deny_read" in box:
        out.append("change which files are hidden from commands")
    return out


def _endpoints(data: Mapping[str, Any]) -> list[str]:
    """Where the file would send prompts, code and files (and the API key)."""
    found = [str(data["api_base"])] if data.get("api_base") else []
    for where in ("models", "agent"):
        for entry in (data.get(where) or {}).values():
            options = entry.get("options") if isinstance(entry, Mapping) else None
            for key in ("api_base", "base_url"):
                if isinstance(options, Mapping) and options.get(key):
                    found.append(str(options[key]))
    return list(dict.fromkeys(found))


def describe(data: Mapping[str, Any], before: Mapping[str, Any]) -> list[str]:
    """What applying ``data`` over ``before`` (the settings without it) would change."""
    out = _sandbox(data.get("sandbox") or {}, before.get("sandbox") or {})
    out += _rules(data.get("permission") or {})
    for name, agent in (data.get("agent") or {}).items():
        if isinstance(agent, Mapping):
            out += _rules(agent.get("permission") or {}, f" for the {name} agent")
            if agent.get("model"):
                out.append(f"use the model {agent['model']} for the {name} agent")
    for kind, rules in (data.get("kernels") or {}).items():
        if isinstance(rules, Mapping):
            out += _rules(rules.get("permission") or {}, f" in {kind} kernels")
    if data.get("mcp"):
        out.append(f"start the MCP servers {', '.join(data['mcp'])} (they run outside the sandbox)")
    endpoints = _endpoints(data)
    if endpoints:
        out.append(f"send your prompts, code and files to {', '.join(endpoints)}")
    if data.get("model"):
        out.append(f"use the model {data['model']}")
    if "protected" in data:
        out.append("change the protected paths")
    if data.get("instructions"):
        out.append(f"add instructions from {', '.join(map(str, data['instructions']))}")
    rest = [k for k in data if k not in _SAID]
    if rest:
        out.append(f"set {', '.join(rest)}")
    return out
