"""Has the configuration changed since it was read? One ``stat`` per file and a scan of the
environment, cheap enough to ask before every prompt.

A kernel lives for days: a rule added to ``jupyter-agent.json`` or a model set with ``%env``
must apply from the next prompt, not from the next kernel. The files come from the loader
(``Config.watched``: every file it read or looked for), so a new source of settings is
watched without a list kept here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ENV_PREFIX = "JUPYTER_AGENT_"
ENV_ALSO = ("XDG_CONFIG_HOME",)
"""Not ours by name, but it moves the user's config file."""

Stamp = tuple[int, int, int] | None
"""(modification time in ns, size, inode) of a file; None when there is none."""


def _stamp(path: Path) -> Stamp:
    try:
        st = path.stat()
    except OSError:  # missing, or unreadable: the loader says what is wrong with it
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def env_settings(env: Mapping[str, str]) -> dict[str, str]:
    """The variables that can change the configuration, as they are now."""
    return {k: v for k, v in env.items() if k.startswith(ENV_PREFIX) or k in ENV_ALSO}


@dataclass
class ConfigWatch:
    """The state of the configuration's sources when it was read."""

    files: dict[Path, Stamp] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def now(cls, files: Iterable[Path], env: Mapping[str, str] | None = None) -> ConfigWatch:
        return cls({p: _stamp(p) for p in files}, env_settings(os.environ if env is None else env))

    def add(self, files: Iterable[Path]) -> None:
        """Also watch ``files`` (sources a re-read found), stamped as they are now."""
        for path in files:
            self.files.setdefault(path, _stamp(path))

    def changes(self, env: Mapping[str, str] | None = None) -> list[str]:
        """What changed since: file paths, then variable names (never their values)."""
        changed = [str(p) for p, stamp in self.files.items() if _stamp(p) != stamp]
        now = env_settings(os.environ if env is None else env)
        changed += sorted(k for k in now.keys() | self.env.keys() if now.get(k) != self.env.get(k))
        return changed
