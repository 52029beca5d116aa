"""A contained kernel's own folder: the connection file it reads, IPython's folder, its sockets.

It lies in Jupyter's runtime folder, which every sandbox hides (connection files hold the
keys that open a kernel), and only this kernel's sandbox gets it back, writable:

- ``connection.json``: the server's connection file, copied (the runtime folder around it
  stays hidden); with ``sandbox.network: false`` rewritten to unix sockets (``ipc``) in
  this folder, which ``contained/relay.py`` joins to the TCP ports the server connects to;
- ``ipython/``: a copy of your IPython folder (configuration, start-up files, extensions),
  since IPython falls back to an empty temporary folder when its own is read-only, and the
  real one must be (its start-up files run in every later kernel). History is not copied
  and lives with this kernel.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.core.processes import pid_alive
from jupyter_agent.tools.protected import jupyter_runtime_dir

SOCKET_MAX = 100
"""A unix socket's path is at most 107 bytes; the kernel adds ``-<port>``."""
OWNER = "launcher.pid"
"""The process that made the folder: once it is gone (``kill -9``), the next kernel removes it."""
CHANNELS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


class RunDirProblem(JupyterAgentError):
    """The kernel's folder cannot be made (the message says what to change)."""


@dataclass
class RunDir:
    path: Path
    connection: Path
    """What the kernel inside reads."""
    ipython: Path
    ip: str = "127.0.0.1"
    """Where the server connects (the original connection file's address)."""
    ports: dict[str, int] = field(default_factory=dict)
    sockets: str | None = None
    """The unix sockets' prefix (``<folder>/k``; the kernel binds ``k-<port>``), or None (TCP)."""

    @classmethod
    def make(cls, connection_file: Path, env: Mapping[str, str], *, ipc: bool) -> RunDir:
        try:
            info = json.loads(connection_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RunDirProblem(f"cannot read the connection file {connection_file} ({exc})") from None
        key = hashlib.sha256(str(connection_file).encode("utf-8", "surrogateescape")).hexdigest()[:10]
        folder = jupyter_runtime_dir(env) / f"ja-{key}"
        sockets = str(folder / "k") if ipc else None
        if sockets is not None and len(os.fsencode(sockets)) + 6 > SOCKET_MAX:
            raise RunDirProblem(
                f"the Jupyter runtime folder {folder.parent} has too long a path for the kernel's sockets "
                "(sandbox.network is false); set JUPYTER_RUNTIME_DIR to a shorter folder"
            )
        _remove_stale(folder.parent)
        shutil.rmtree(folder, ignore_errors=True)  # a kernel restarted with the same file
        try:
            folder.mkdir(parents=True, mode=0o700)
            (folder / OWNER).write_text(str(os.getpid()), encoding="utf-8")
        except OSError as exc:
            raise RunDirProblem(f"cannot make the kernel's folder {folder} ({exc.strerror or exc})") from None
        run = cls(folder, folder / "connection.json", folder / "ipython", str(info.get("ip") or "127.0.0.1"))
        run.ports = {name: int(info[name]) for name in CHANNELS if info.get(name)}
        if sockets is not None:
            info.update(transport="ipc", ip=sockets)
            run.sockets = sockets
        fd = os.open(run.connection, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(info, out)
        _copy_ipython(_ipython_dir(env), run.ipython)
        return run

    @property
    def egress(self) -> str:
        """The unix socket through which a kernel without a network reaches its model."""
        return str(self.path / "egress")

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


def _remove_stale(runtime: Path) -> None:
    """Run folders of kernels whose launcher is gone (killed before it could tidy up)."""
    for folder in runtime.glob("ja-*") if runtime.is_dir() else ():
        try:
            pid = int((folder / OWNER).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if pid != os.getpid() and not pid_alive(pid):
            shutil.rmtree(folder, ignore_errors=True)


def _ipython_dir(env: Mapping[str, str]) -> Path:
    named = env.get("IPYTHONDIR")
    return Path(named).expanduser() if named else Path(env.get("HOME") or Path.home()) / ".ipython"


def _copy_ipython(source: Path, target: Path) -> None:
    """Your IPython folder without its history (an empty one when there is none)."""
    with contextlib.suppress(OSError, shutil.Error):
        if source.is_dir():
            shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns("history.sqlite*"))
            return
    target.mkdir(exist_ok=True, mode=0o700)
