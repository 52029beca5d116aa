"""``python -m jupyter_agent.contained -f CONNECTION_FILE``: ipykernel inside the sandbox.

The kernelspec's argv (``contained/kernelspec.py``). This process is what the server
started and watches; it plans the same layout a ``bash`` command gets
(``tools/sandbox_layout.py``) with what a kernel needs besides — its session store
writable, jupyter-agent's own folders read-only rather than hidden, its run folder
(``contained/rundir.py``) — starts ``python -m ipykernel_launcher`` in it, and stays:

- signals: the server interrupts a kernel with SIGINT to its process group; bubblewrap
  would die of it, so it starts in a session of its own with SIGINT ignored, and this
  process hands SIGINT (and SIGTERM, SIGHUP) to that session, where ipykernel catches it
  while a cell runs;
- git: the project's git folders are staged as for a command, and synced both ways every
  second while the kernel lives (``StagedGit.sync``), so a commit in a cell and one in your
  terminal both land;
- when the kernel ends: what it left where protected paths did not exist is moved aside
  (``tools/sweep.py``; after a ``kill -9`` of this process its keeper does it, ``keep``),
  the git copies written back, the run folder removed;
- ``sandbox.network: false``: the channels are relayed (``contained/relay.py``), and the
  model's endpoints reached through the kernel's own loopback (``contained/egress.py``).

A kernel that cannot be contained does not start: the reason is one line on stderr (the
server's log), never an unconfined kernel.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from jupyter_agent.contained import settings as kernel_settings
from jupyter_agent.contained.rundir import RunDir, RunDirProblem
from jupyter_agent.core.errors import JupyterAgentError
from jupyter_agent.storage import location
from jupyter_agent.tools import bwrap, notebook_path, sandbox, sweep
from jupyter_agent.tools.kernel_kind import CONTAINED_VAR
from jupyter_agent.tools.protected import Guard, project_root, user_config_dir, user_data_dir
from jupyter_agent.tools.sandbox_layout import Layout
from jupyter_agent.tools.sweep import Entry

SYNC_EVERY_S = 1.0
KEEPER_GRACE_S = 0.3
"""How long the keeper waits for the sandbox to die with its parent before it sweeps."""
EARLY_EXIT_S = 5.0
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
DROPPED = ("SSH_AUTH_SOCK",)
"""The ssh-agent's socket is hidden."""
PARENT = {"JPY_PARENT_PID": "1"}
"""ipykernel watches its parent and exits when it changes; inside, its parent is the
sandbox's own init, so it is told "none to watch" (``--die-with-parent`` ties the kernel to
this process instead)."""


class CannotStart(JupyterAgentError):
    """Why the kernel cannot be contained here (one line; ``main`` prints it and exits 1)."""


def store_folder(cwd: Path, env: Mapping[str, str], store: str | None) -> Path:
    """Where the kernel's session store lives, as the kernel will find it (``store``, or the
    user's data folder when the notebook's folder cannot be written); one kept elsewhere is
    made here, since the kernel could not make it inside."""
    found = location.locate(cwd, store, env)
    if found.base is None:
        return found.folder
    try:
        return location.create(found, cwd)
    except OSError as exc:
        raise CannotStart(
            f"its session store {found.folder} cannot be made ({exc.strerror or exc})"
        ) from None


@dataclass
class Plan:
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    layout: Layout
    run: RunDir
    endpoints: tuple[str, ...] = ()
    """The model endpoints a kernel without a network reaches (``contained/egress.py``)."""


def plan(connection_file: Path, cwd: Path, env: Mapping[str, str], rest: list[str]) -> Plan:
    """The sandboxed kernel to start for ``connection_file`` in ``cwd``."""
    try:
        chosen = kernel_settings.read(cwd, env)
    except kernel_settings.SettingsProblem as exc:
        raise CannotStart(f"its sandbox settings cannot be read: {exc}") from None
    if not sys.platform.startswith("linux"):
        raise CannotStart(sandbox.LINUX_ONLY)
    found, why = bwrap.find(env)
    if found is None:
        raise CannotStart(str(why))
    problem, base = kernel_settings.base_mounts(found, chosen.network, env)
    if problem is not None:
        raise CannotStart(problem)
    root = project_root(cwd)
    guard = Guard.build(env, chosen.protected, chosen.deny_read)
    writable = [root / Path(p).expanduser() for p in chosen.writable]
    try:
        run = RunDir.make(connection_file, env, ipc=not chosen.network)
    except RunDirProblem as exc:
        raise CannotStart(str(exc)) from None
    readable = [user_config_dir(env), user_data_dir(env)]  # its configuration and trust records
    layout = Layout.plan(
        cwd, root, writable, guard, env, store=store_folder(cwd, env, chosen.store), readable=readable
    )
    layout.exposed.append(run.path)
    trail = audit_mounts(chosen.audit, layout, cwd, env)
    swappable = bwrap.writable_home(found, layout.writable)
    if swappable is not None:
        Spawnless(layout, run).finish()
        raise CannotStart(f"the sandbox program {found} lies in {swappable}, which the kernel may write")
    inner = [sys.executable, "-m", "ipykernel_launcher", "-f", str(run.connection), *rest]
    argv = sandbox.confined(inner, cwd, layout, chosen.network, found, base)
    at = argv.index("--chdir")
    argv[at:at] = trail
    if chosen.network or not chosen.endpoints:
        return Plan(argv, kernel_env(env, run), cwd, layout, run)
    # asyncio loads only for a kernel without a network
    from jupyter_agent.contained import egress

    routes, hosts = egress.routes(chosen.endpoints)
    (run.path / "hosts").write_text("\n".join(hosts) + "\n", encoding="utf-8")
    at = argv.index("--chdir")  # the names resolve to the kernel's own loopback
    argv[at:at] = ["--ro-bind", str(run.path / "hosts"), "/etc/hosts"]
    listed = json.dumps([asdict(r) for r in routes])
    argv[-len(inner) :] = [
        sys.executable,
        "-m",
        "jupyter_agent.contained.egress",
        listed,
        run.egress,
        *inner[3:],
    ]
    return Plan(argv, kernel_env(env, run), cwd, layout, run, chosen.endpoints)


def audit_mounts(audit: str | None, layout: Layout, cwd: Path, env: Mapping[str, str]) -> list[str]:
    """The admin's audit trail stays writable from inside: its folder (made here if it can
    be; never one holding the home or the project, which would undo the sandbox: the kernel
    then says the trail cannot be written), or syslog's socket (the sandbox's ``/dev`` has
    none; the extra bwrap arguments)."""
    if not audit:
        return []
    if audit.strip() == "syslog":  # connecting to a socket is not writing to its mount
        return ["--ro-bind-try", "/dev/log", "/dev/log"]
    folder = Path(audit).expanduser()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
    folder = folder.resolve()
    home = Path(env.get("HOME") or Path.home()).resolve()
    if folder.is_dir() and not any(p == folder or folder in p.parents for p in (home, cwd.resolve())):
        layout.exposed.append(folder)
    return []


def kernel_env(env: Mapping[str, str], run: RunDir) -> dict[str, str]:
    """A command's environment (no server tokens, no start-up files for bash), marked
    contained, with what the kernel cannot see from inside the sandbox (its parent there is
    the sandbox's own init): whether a server named its notebook, and the runner's command."""
    clean = sandbox.command_env(env)
    for name in DROPPED:
        clean.pop(name, None)
    served = env.get(notebook_path.SERVER_VARIABLE)
    if served and notebook_path.inherited(notebook_path.SERVER_VARIABLE, served):
        clean.pop(notebook_path.SERVER_VARIABLE)  # papermill run from a notebook: not served
    clean.pop(notebook_path.RUNNER_VARIABLE, None)  # only what this launcher saw
    runner = notebook_path.parent_command()
    if runner is not None:
        clean[notebook_path.RUNNER_VARIABLE] = json.dumps({"argv": runner[0], "cwd": str(runner[1])})
    clean.update({CONTAINED_VAR: "1", "IPYTHONDIR": str(run.ipython), **PARENT})
    return clean


@dataclass
class Spawnless:
    """What is left to do when the kernel has gone (or never started)."""

    layout: Layout
    run: RunDir
    keeper: int | None = None
    """Our end of the keeper's pipe (``keep``)."""

    def finish(self) -> None:
        spawn = sandbox.Spawn([], {}, sandboxed=True, layout=self.layout)
        for note in spawn.finish():
            _say(note)
        self.run.remove()
        if self.keeper is not None:
            with contextlib.suppress(OSError):
                os.write(self.keeper, b"done")
                os.close(self.keeper)


def keep(entries: list[Entry], run: Path) -> int:
    """A copy of this process (``fork``: no interpreter to start, nothing to import) in a
    session of its own, that waits for this one to end: when it ends without saying "done"
    (``kill -9``, the server's restart), what the kernel made where protected paths did not
    exist is moved aside and the run folder removed, once the sandbox has died with it.
    Our end of its pipe."""
    read, write = os.pipe()
    if os.fork() != 0:
        os.close(read)
        return write
    try:  # the keeper
        os.close(write)
        os.setsid()
        said = b""
        while chunk := os.read(read, 64):
            said += chunk
        if b"done" not in said:
            time.sleep(KEEPER_GRACE_S)
            sweep.sweep(entries)
            shutil.rmtree(run, ignore_errors=True)
    finally:
        os._exit(0)


def _say(line: str) -> None:
    print(f"jupyter-agent: {line}", file=sys.stderr, flush=True)


def supervise(p: Plan) -> int:
    """Start the kernel, relay signals (and the channels), sync git; its exit code."""
    left = Spawnless(p.layout, p.run, keep(p.layout.absent, p.run.path))  # before any thread
    if p.run.sockets is not None:
        # the relay (asyncio) loads only for a kernel without a network
        from jupyter_agent.contained import egress, relay

        try:
            relay.start(p.run.ip, p.run.ports, p.run.sockets)
            if p.endpoints:
                egress.serve(p.run.egress, p.endpoints)
        except OSError as exc:
            left.finish()
            _say(f"the contained kernel cannot start: {exc}")
            return 1
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited: bwrap must outlive an interrupt
    try:
        proc = subprocess.Popen(p.argv, env=p.env, cwd=p.cwd, start_new_session=True)
    except OSError as exc:
        left.finish()
        _say(f"the contained kernel cannot start: {exc}")
        return 1

    def forward(sig: int, frame: object) -> None:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, sig)

    for sig in FORWARDED:
        signal.signal(sig, forward)
    started = time.monotonic()
    try:
        code = _wait(proc, p.layout)
    finally:
        left.finish()
    if code != 0 and time.monotonic() - started < EARLY_EXIT_S:
        kernel_settings.forget_mounts(p.env)  # the sandbox may not start any more: try again next time
    return 128 - code if code < 0 else code


def _wait(proc: subprocess.Popen[bytes], layout: Layout) -> int:
    while True:
        try:
            return proc.wait(timeout=SYNC_EVERY_S)
        except subprocess.TimeoutExpired:
            for staged in layout.staged:
                for note in staged.sync():
                    _say(note)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if "-f" not in args or args.index("-f") + 1 >= len(args):
        print("usage: python -m jupyter_agent.contained -f CONNECTION_FILE [OPTIONS]", file=sys.stderr)
        return 2
    at = args.index("-f")
    connection_file = Path(args[at + 1]).resolve()
    rest = args[:at] + args[at + 2 :]
    try:
        chosen = plan(connection_file, Path.cwd().resolve(), os.environ, rest)
    except CannotStart as exc:
        _say(f"the contained kernel cannot start: {exc}")
        return 1
    return supervise(chosen)
