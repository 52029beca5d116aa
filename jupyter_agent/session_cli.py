"""``jupyter-agent sessions list|show|rename|delete``: the store from a terminal."""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any

from jupyter_agent.core.messages import TextPart, ToolPart


def add_session_commands(sub: Any) -> None:
    sessions = sub.add_parser("sessions", help="list, show, rename or delete sessions")
    sessions.add_argument("--notebook", help="the notebook whose session store to use")
    actions = sessions.add_subparsers(dest="action", required=True)
    actions.add_parser("list")
    show = actions.add_parser("show")
    show.add_argument("id")
    rename = actions.add_parser("rename")
    rename.add_argument("id")
    rename.add_argument("title")
    delete = actions.add_parser("delete")
    delete.add_argument("id")


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def run_session_command(args: argparse.Namespace) -> int:
    from jupyter_agent.cli import build_runtime
    from jupyter_agent.storage.sqlite_store import SessionNotFound

    runtime = build_runtime(args)
    try:
        if args.action == "list":
            for s in sorted(runtime.store.list_sessions(None), key=lambda s: -s.time.updated):
                child = f"  (child of {s.parent_id})" if s.parent_id else ""
                print(f"{s.id}  {_when(s.time.updated)}  {s.title}{child}")
            return 0
        session = runtime.store.get_session(args.id)
        if args.action == "rename":
            runtime.store.update_session(session.model_copy(update={"title": args.title}))
            print(f"renamed {session.id}: {args.title}")
        elif args.action == "delete":
            runtime.delete_session(session.id)
            print(f"deleted {session.id} and its messages and child sessions")
        else:
            print(f"# {session.title}  ({session.id})")
            for m in runtime.store.messages(session.id):
                print(f"\n## {m.info.role}")
                for p in m.parts:
                    if isinstance(p, TextPart) and not p.ignored:
                        print(p.text)
                    elif isinstance(p, ToolPart):
                        print(f"[tool {p.tool}: {p.state.status}]")
        return 0
    except SessionNotFound as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
