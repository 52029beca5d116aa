"""``jupyter-agent trust PATH``: apply a configuration file you wrote (or read and accept).

A ``jupyter-agent.json`` is applied only once its content is trusted (``trust.py``); a
headless run that meets a new or changed one stops with a line naming this command.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from jupyter_agent import trust
from jupyter_agent.config import PROJECT_FILE, ConfigError, load_config
from jupyter_agent.core.errors import EXIT_USAGE


def add_trust_command(sub: Any) -> None:
    cmd = sub.add_parser(
        "trust",
        help="apply a jupyter-agent.json that is new or changed (or --ignore it)",
        description=(
            "A jupyter-agent.json is applied only once you trusted its content: one that is new "
            "or changed since (written by you, a command, git checkout …) is not. Trust it here, "
            "or from the notebook's or the side panel's Trust / Ignore."
        ),
    )
    cmd.add_argument(
        "paths", nargs="*", metavar="PATH", help="a jupyter-agent.json, or the folder holding it"
    )
    what = cmd.add_mutually_exclusive_group()
    what.add_argument("--ignore", action="store_true", help="run without it until it changes")
    what.add_argument("--forget", action="store_true", help="forget what was decided about it")
    what.add_argument(
        "--folder",
        action="store_true",
        help="trust every jupyter-agent.json under these folders, now and later, whoever writes it "
        "(commands included: only for folders no agent works in)",
    )
    what.add_argument("--list", action="store_true", help="what was decided, and where it is recorded")


def _config_file(given: str) -> Path:
    path = Path(given).expanduser()
    if path.is_dir():
        path = path / PROJECT_FILE
    return path.parent.resolve() / path.name  # the name the loader reads it by


def run_trust_command(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    if not args.paths:
        print("error: name the file (jupyter-agent trust PATH), or --list", file=sys.stderr)
        return EXIT_USAGE
    code = 0
    for given in args.paths:
        if args.folder:
            folder = Path(given).expanduser().resolve()
            trust.trust_folder(folder)
            print(f"trusted every {PROJECT_FILE} under {folder}")
            continue
        path = _config_file(given)
        if args.forget:
            print(f"forgot {path}" if trust.forget(path) else f"nothing was decided about {path}")
        elif not path.is_file():
            print(f"error: {path}: no such file", file=sys.stderr)
            code = EXIT_USAGE
        else:
            code = max(code, _decide(path, "ignore" if args.ignore else "trust"))
    return code


def _decide(path: Path, decision: trust.Decision) -> int:
    """Record ``decision`` for the content the file has now, saying what it changes."""
    raw = path.read_bytes()
    try:
        pending = load_config(path.parent).untrusted
    except ConfigError as exc:  # another file the folder reads is broken: say so, decide anyway
        print(f"note: {exc}", file=sys.stderr)
        pending = []
    item = next((p for p in pending if p.path == path), None)
    if item is not None and item.error and decision == "trust":
        print(f"error: {path} {item.what()}: fix it, then trust it", file=sys.stderr)
        return EXIT_USAGE
    trust.record(path, trust.digest(raw), decision)
    said = f": it {item.what()}" if item is not None and decision == "trust" else ""
    print(f"{'trusted' if decision == 'trust' else 'ignored'} {path}{said}")
    return 0


def _list() -> int:
    records = trust.load()
    print(f"recorded in {trust.store_path()}")
    for folder in records.folders:
        print(f"trusted folder  {folder}")
    for path, entry in sorted(records.files.items()):
        print(f"{entry.decision:<7} {path}  (sha256 {entry.sha256[:12]})")
    return 0
