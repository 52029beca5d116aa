"""``jupyter-agent sessions list|show|rename|delete``: the store from a terminal."""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from jupyter_agent.core.cost import CostTotal
from jupyter_agent.core.errors import UsageFailure
from jupyter_agent.core.messages import MessageWithParts, Session
from jupyter_agent.failures import UsageProblem
from jupyter_agent.session.export import SessionExport
from jupyter_agent.session.rendering import View, render_part

SHOW = View(system_text=True)
"""``sessions show`` is the raw listing: the text the system wrote into the history too."""


def show_text(session: Session, messages: Iterable[MessageWithParts]) -> str:
    """``sessions show``: each message's role, its text and one line per tool call."""
    lines = [f"# {session.title}  ({session.id})"]
    for m in messages:
        lines.append(f"\n## {m.info.role}")
        for shown in (render_part(p, SHOW, m.info) for p in m.parts):
            if shown is not None and shown.name:
                lines.append(f"[tool {shown.name}: {shown.status}]")
            elif shown is not None and shown.text.strip() and not shown.aside:
                lines.append(shown.text)
    return "\n".join(lines)


def add_session_commands(sub: Any) -> None:
    sessions = sub.add_parser("sessions", help="list, show, rename or delete sessions")
    sessions.add_argument("--notebook", help="the notebook whose session store to use")
    actions = sessions.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="the sessions stored here, newest first")
    listing.add_argument("--json", action="store_true", help="one JSON array of sessions")
    show = actions.add_parser("show", help="print a session's messages")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="the session and its messages as JSON")
    rename = actions.add_parser("rename", help="give a session a new title")
    rename.add_argument("id")
    rename.add_argument("title")
    delete = actions.add_parser("delete", help="delete a session, its messages and child sessions")
    delete.add_argument("id")
    fork = actions.add_parser("fork", help="copy a session up to a message into a new one")
    fork.add_argument("id")
    fork.add_argument("--at", dest="at", help="first message NOT copied (default: copy all)")
    export = actions.add_parser("export", help="write a session as json, md or into a notebook")
    export.add_argument("id")
    export.add_argument("--format", choices=("json", "md", "ipynb"), default="json")
    export.add_argument("--output", help="file to write (json/md: default stdout; ipynb: required)")
    imp = actions.add_parser("import", help="restore a JSON export as a new session")
    imp.add_argument("file")
    rev = actions.add_parser("revert", help="undo the agent's changes from a message on")
    rev.add_argument("id")
    rev.add_argument("--at", dest="at", help="message to revert to (default: the last prompt)")
    unrev = actions.add_parser("unrevert", help="undo the pending revert")
    unrev.add_argument("id")


def _when(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def _export(runtime: Any, session_id: str, fmt: str, output: str | None) -> None:
    if output and Path(output).is_dir():
        raise UsageProblem(
            f"--output {output}: is a folder; give a file name, e.g. "
            f"--output {Path(output) / f'{session_id}.{fmt}'}"
        )
    if fmt == "ipynb":
        # nbformat (and its JSON Schema) loads only for an ipynb export
        import nbformat

        if not output:
            raise UsageProblem("--output NOTEBOOK.ipynb is required for --format ipynb")
        path = Path(output)
        nb = nbformat.read(path, as_version=4) if path.exists() else nbformat.v4.new_notebook()
        cells = runtime.export_cells(session_id)
        nb.cells.extend(cells)
        nbformat.write(nb, path)
        print(f"added {len(cells)} markdown cells to {path}", file=sys.stderr)
        return
    chunks = runtime.export(session_id, "json" if fmt == "json" else "md")
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    try:
        for chunk in chunks:  # streamed: a huge session is never built in memory at once
            out.write(chunk)
        out.write("\n")
    finally:
        if output:
            out.close()


def _read_export(file: str) -> str:
    """The text of a JSON export; a missing, unreadable or foreign file is a usage problem."""
    hint = "give a file written by `jupyter-agent sessions export ID`"
    path = Path(file)
    if not path.is_file():
        what = "is a folder" if path.is_dir() else "no such file"
        raise UsageProblem(f"{file}: {what}; {hint}")
    try:
        text = path.read_text(encoding="utf-8")
        SessionExport.model_validate_json(text)
    except (UnicodeDecodeError, ValidationError) as exc:
        detail = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not UTF-8 text"
        raise UsageProblem(f"{file}: not a jupyter-agent session export ({detail}); {hint}") from None
    return text


def _ask_protected(paths: list[str]) -> bool:
    """A revert would write protected paths: a terminal asks (piped input never approves)."""
    if not sys.stdin.isatty():
        return False
    print("This would write protected paths:\n  " + "\n  ".join(paths), file=sys.stderr)
    return input("Write them anyway? [y/N] ").strip().lower() in ("y", "yes")


def _holding(session_id: str, runtime: Any, others: list[Any]) -> Any:
    """The runtime whose store holds ``session_id`` (the folder's own store first)."""
    # the store loads per command
    from jupyter_agent.storage.sqlite_store import SessionNotFound

    try:
        runtime.get_session(session_id)
        return runtime
    except SessionNotFound:
        for other in others:
            try:
                other.get_session(session_id)
                return other
            except SessionNotFound:
                continue
        raise


def _list(runtime: Any, others: list[Any], as_json: bool) -> None:
    """Every session of this folder: its store's and those kept in its other places (a
    read-only folder's in the user data folder, the ``store`` setting's), newest first."""
    rows: list[tuple[Session, CostTotal, str | None]] = []
    for index, where in enumerate([runtime, *others]):
        costs = where.session_costs()
        place = None if index == 0 else str(where.store_path.parent)
        rows += [(s, costs.get(s.id, CostTotal()), place) for s in where.list_sessions(every_notebook=True)]
    rows.sort(key=lambda r: -r[0].time.updated)
    if as_json:
        out = []
        for s, cost, place in rows:
            row = {**s.model_dump(mode="json"), "cost_usd": cost.usd, "cost_unknown": cost.unknown}
            row["cost"] = cost.text()  # "cost unknown" for a failed or unpriced call, never $0.00
            out.append({**row, "store": place} if place else row)
        print(json.dumps(out, indent=1))
        return
    for s, cost, place in rows:
        child = f"  (child of {s.parent_id})" if s.parent_id else ""
        kept = f"  [kept in {place}]" if place else ""
        print(f"{s.id}  {_when(s.time.updated)}  {cost.text():>10}  {s.title}{child}{kept}")


def other_stores(runtime: Any) -> list[Any]:
    """Runtimes on the folder's other stores that exist: sessions kept next to the notebook
    before its folder became read-only, or in the user data folder before it became writable,
    or before ``store`` was set (``jupyter-agent sessions`` finds them all)."""
    # `jupyter-agent --help` stays fast: the runtime and the store load per command
    from jupyter_agent.agent.compose import build_runtime as compose
    from jupyter_agent.storage import location
    from jupyter_agent.storage.sqlite_store import SqliteStore, StoreError

    here = runtime.store_path.parent
    found = []
    for folder in location.candidates(runtime.working_dir, runtime.config.store):
        if folder != here and (folder / location.DB_NAME).is_file():
            try:
                store = SqliteStore(folder / location.DB_NAME)
            except StoreError as exc:  # a read-only folder's old store, say: the others still list
                print(f"note: the sessions kept in {folder} cannot be read: {exc}", file=sys.stderr)
                continue
            found.append(
                compose(
                    config=runtime.config,
                    store=store,
                    project_root=runtime.project_root,
                    working_dir=runtime.working_dir,
                    notebook_path=None,
                )
            )
    return found


def run_session_command(
    args: argparse.Namespace,
    build_runtime: Callable[[argparse.Namespace], Any],
    elsewhere: Callable[[Any], list[Any]] | None = None,
) -> int:
    """``build_runtime``: the CLI's (it reads ``--notebook``); ``elsewhere(runtime)``: runtimes
    of the folder's other stores that exist (sessions are found in either place)."""
    # `jupyter-agent --help` stays fast: the runtime and the store load per command
    from jupyter_agent.storage.sqlite_store import SessionNotFound

    runtime = build_runtime(args)
    others = elsewhere(runtime) if elsewhere is not None else []
    try:
        if getattr(args, "id", None) and args.action != "import":
            runtime = _holding(args.id, runtime, others)
        if args.action == "import":
            dropped: list[str] = []
            session = runtime.import_session(_read_export(args.file), dropped)
            print(f"imported as {session.id}: {session.title}")
            if dropped:
                shown = ", ".join(dropped[:3]) + (f" and {len(dropped) - 3} more" if len(dropped) > 3 else "")
                print(
                    f"note: {len(dropped)} recorded file change(s) outside this project were left out "
                    f"({shown}); revert will not touch them",
                    file=sys.stderr,
                )
            return 0
        if args.action == "fork":
            session = runtime.fork(runtime.get_session(args.id).id, args.at)
            print(f"forked as {session.id}: {session.title}")
            return 0
        if args.action == "export":
            _export(runtime, runtime.get_session(args.id).id, args.format, args.output)
            return 0
        if args.action in ("revert", "unrevert"):
            sid = runtime.get_session(args.id).id
            reverting = (
                runtime.revert(sid, args.at, approve=_ask_protected)
                if args.action == "revert"
                else runtime.unrevert(sid, approve=_ask_protected)
            )
            print(asyncio.run(reverting.finish()).text(f"`jupyter-agent sessions unrevert {args.id}`"))
            return 0
        if args.action == "list":
            _list(runtime, others, args.json)
            return 0
        session = runtime.get_session(args.id)
        if args.action == "rename":
            runtime.rename_session(session.id, args.title)
            print(f"renamed {session.id}: {args.title}")
        elif args.action == "delete":
            runtime.delete_session(session.id)
            print(f"deleted {session.id} and its messages and child sessions")
        elif args.json:
            _export(runtime, session.id, "json", None)
        else:
            print(show_text(session, runtime.messages(session.id)))
        return 0
    except UsageFailure as exc:  # a name the user typed, a revert that cannot be done; not any KeyError
        moved = " (it may be in the damaged store that was just moved aside)"
        extra = moved if isinstance(exc, SessionNotFound) and runtime.store_notice else ""
        print(f"error: {exc.for_user(cli=True)}{extra}", file=sys.stderr)
        return exc.exit_code
