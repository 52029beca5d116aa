"""The user data folder: what jupyter-agent keeps about you outside every project.

Trusted configuration files, the sandbox's scratch copies of git folders, and the stores of
notebook folders that cannot be written all live here; commands never see it (``tools/protected.py``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path


def user_data_dir(env: Mapping[str, str] | None = None) -> Path:
    """``JUPYTER_AGENT_DATA_DIR``, else ``$XDG_DATA_HOME/jupyter-agent`` (``~/.local/share``),
    else on macOS ``~/Library/Application Support/jupyter-agent``."""
    env = os.environ if env is None else env
    if env.get("JUPYTER_AGENT_DATA_DIR"):
        return Path(env["JUPYTER_AGENT_DATA_DIR"]).expanduser()
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]) / "jupyter-agent"
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "jupyter-agent"
    return home / ".local" / "share" / "jupyter-agent"
