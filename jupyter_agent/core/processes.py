"""Whether a process is still running: the one test leases, run folders and staged git
folders use to tell a live owner from one that was killed (``kill -9`` leaves its files)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists (one owned by another user counts: it may still be working)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
