"""Processes found by their command line, as this process sees them.

A command in the bash sandbox has its own process namespace: ``$$`` and ``$!`` there are
not the pids outside. Tests that check a child died give it a unique command line
(``sleep 300.481516``) and look it up here instead.
"""

from __future__ import annotations

import os
import random
from pathlib import Path


def unique_sleep(seconds: int) -> str:
    """``sleep N.xxxxxx``: a command line no other test runs at the same time."""
    return f"sleep {seconds}.{random.randrange(10**6):06d}"


def pids_of(command: str) -> list[int]:
    """Live (non-zombie) processes whose argv joined by spaces is ``command``."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if b" ".join(argv).decode(errors="replace") == command and state != "Z":
            found.append(int(entry.name))
    return found
