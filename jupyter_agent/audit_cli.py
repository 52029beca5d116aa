"""``jupyter-agent audit``: the admin's audit trail summed up by user, tool and decision.

Reads every ``*.jsonl`` file of the audit folder (rotated ones too): how many tool calls
each user and tool made, how they were decided (allowed, asked → the answer, denied) and
what the steps that made them cost. A step's cost counts once however many calls it made;
a step without a price makes the total "+ unknown", never $0.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jupyter_agent.core.cost import format_cost
from jupyter_agent.failures import UsageProblem
from jupyter_agent.storage.audit_log import SYSLOG, records

GROUPS = ("user", "tool", "decision")


def add_command(sub: Any) -> None:
    audit = sub.add_parser("audit", help="sum up the administrator's audit trail of tool calls")
    audit.add_argument("folder", nargs="?", help='the audit folder (default: "audit" in the configuration)')
    audit.add_argument("--by", choices=GROUPS, action="append", help="only these tables (repeatable)")
    audit.add_argument("--json", action="store_true", help="the counts as one JSON object")


def decision_of(record: dict[str, Any]) -> str:
    """``allowed``, ``asked → once``, ``denied`` … as one label."""
    decision = str(record.get("decision") or "unknown")
    return (
        f"{decision} → {record.get('answer')}" if decision == "asked" and record.get("answer") else decision
    )


class Group:
    """Counts and step costs of one row."""

    def __init__(self) -> None:
        self.calls = 0
        self.decisions: Counter[str] = Counter()
        self.steps: dict[tuple[str, str], tuple[float, bool]] = {}

    def add(self, record: dict[str, Any]) -> None:
        self.calls += 1
        self.decisions[str(record.get("decision") or "unknown")] += 1
        usd = record.get("step_cost_usd")
        step = (str(record.get("session")), str(record.get("message")))
        if "step_cost_usd" in record or record.get("cost_unknown"):
            cost = float(usd) if isinstance(usd, int | float) else 0.0
            self.steps[step] = (cost, bool(record.get("cost_unknown")) or usd is None)

    def cost(self) -> str:
        if not self.steps:
            return "cost unknown"
        usd = sum(c for c, _ in self.steps.values())
        return format_cost(usd, any(u for _, u in self.steps.values()), len(self.steps))

    def as_json(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "decisions": dict(self.decisions),
            "cost_usd": round(sum(c for c, _ in self.steps.values()), 6),
            "cost_unknown": any(u for _, u in self.steps.values()) or not self.steps,
        }


def summarize(found: Iterable[dict[str, Any]]) -> dict[str, dict[str, Group]]:
    tables: dict[str, dict[str, Group]] = {g: defaultdict(Group) for g in (*GROUPS, "all")}
    for record in found:
        keys = {"user": str(record.get("user") or "?"), "tool": str(record.get("tool") or "?")}
        keys["decision"] = decision_of(record)
        keys["all"] = "all"
        for group, value in keys.items():
            tables[group][value].add(record)
    return tables


def _row(name: str, group: Group) -> str:
    shown = " · ".join(f"{k} {v}" for k, v in sorted(group.decisions.items()))
    return f"  {name:<24} {group.calls:>6}  {shown:<40} {group.cost()}"


def folder_from(args: argparse.Namespace) -> Path:
    """The folder named on the command line, else the configuration's ``audit``."""
    if args.folder:
        return Path(args.folder).expanduser()
    # the configuration loads per command: `jupyter-agent --help` stays fast
    from jupyter_agent.config import load_config

    config = load_config(Path.cwd())
    where = config.admin_file or "the configuration"
    if not config.audit:
        raise UsageProblem(
            'no audit trail is configured: the administrator sets "audit" (a folder) in '
            f"{where}; or name the folder: jupyter-agent audit FOLDER"
        )
    if config.audit == SYSLOG:
        raise UsageProblem(
            f'the audit trail goes to syslog ("audit": "syslog" in {where}): read it there, '
            "e.g. journalctl -t jupyter-agent"
        )
    return Path(config.audit).expanduser()


def main(args: argparse.Namespace) -> int:
    folder = folder_from(args)
    if not folder.is_dir():
        raise UsageProblem(f"{folder}: no such folder (the audit trail is written there once a tool runs)")
    skipped: list[str] = []
    tables = summarize(records(folder, skipped))
    total = tables["all"].get("all")
    chosen = args.by or list(GROUPS)
    if args.json:
        out: dict[str, Any] = {g: {k: v.as_json() for k, v in sorted(tables[g].items())} for g in chosen}
        out["all"] = total.as_json() if total else {"calls": 0}
        print(json.dumps(out, indent=1))
    elif total is None:
        print(f"No tool calls recorded in {folder}.")
    else:
        print(f"{total.calls} tool calls in {folder}; their steps cost {total.cost()}")
        for group in chosen:
            print(f"\nby {group}:")
            for name, row in sorted(tables[group].items(), key=lambda kv: (-kv[1].calls, kv[0])):
                print(_row(name, row))
    if skipped:
        print(f"note: lines that are not audit records were skipped ({'; '.join(skipped)})", file=sys.stderr)
    return 0
