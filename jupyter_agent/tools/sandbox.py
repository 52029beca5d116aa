"""The OS sandbox ``bash`` runs in: bubblewrap (``bwrap``) on Linux.

Rules decide which commands may run; this decides what a running command can reach,
however its paths are spelled. What is writable, read-only and hidden inside is the
layout (``tools/sandbox_layout.py``; git folders: ``tools/git_stage.py``); here a command
gets it, with:

- its own process, IPC and host-name namespaces — no other process shows in ``/proc``,
  so ``/proc/<pid>/root`` leads nowhere — no capabilities (also as root), ``/proc/sys``,
  ``/sys`` and ``/proc/sysrq-trigger`` read-only; it dies with the agent
  (``--die-with-parent``), its background jobs when it ends;
- ``sandbox.network: false``: a network namespace too (only its own loopback);
- an environment without start-up files bash would run (``BASH_ENV``) and without the
  tokens that open a Jupyter server or hub (a command could start a kernel through it);
- bubblewrap from a system folder only (``tools/bwrap.py``).

When no sandbox can start (no bwrap, user namespaces off, not Linux) the command runs as
before and the front ends say so (``start_problem``). In a contained kernel
(``tools/kernel_kind.py``) commands run as they are: the kernel is inside the same layout
already, and a sandbox cannot be nested in one.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from jupyter_agent.tools import bwrap, kernel_kind, process_guard, sweep
from jupyter_agent.tools.protected import Guard
from jupyter_agent.tools.sandbox_layout import Layout

LINUX_ONLY = "the OS sandbox for bash is Linux-only for now"
STARTUP_VARS = ("BASH_ENV", "ENV")
"""Files bash runs before the command: code the rules would never see."""
SERVER_TOKENS = re.compile(r"^(JUPYTER|JPY|JUPYTERHUB)[A-Z0-9_]*(TOKEN|SECRET|PASSWORD|COOKIE)", re.I)
"""A Jupyter server's or hub's token (``JUPYTER_TOKEN``, ``JUPYTERHUB_API_TOKEN``,
``JPY_API_TOKEN`` …): with it a command could start a kernel outside the sandbox."""


class SandboxUnsafe(Exception):
    """The sandbox cannot be trusted here (its program lies where commands may write).

    Never reaches a front end: the ``bash`` tool turns it into a ``ToolError``."""


@dataclass(frozen=True)
class SandboxPolicy:
    """The ``sandbox`` config key, resolved."""

    enabled: bool = True
    network: bool = True
    writable: tuple[Path, ...] = field(default_factory=tuple)


def bwrap_binary(env: Mapping[str, str]) -> str | None:
    """The bubblewrap to use (``JUPYTER_AGENT_BWRAP``, an absolute path, else the system's)."""
    return bwrap.find(env)[0]


def start_problem(policy: SandboxPolicy, env: Mapping[str, str] | None = None) -> str | None:
    """Why commands run without the sandbox though it is enabled (None: it starts, or it is
    switched off). Each binary is tried once per process, with the flags commands get."""
    if not policy.enabled or kernel_kind.contained():
        return None
    if not sys.platform.startswith("linux"):
        return LINUX_ONLY
    found, why = bwrap.find(os.environ if env is None else env)
    if found is None:
        return why
    return bwrap.tried(found, policy.network)[0]


def command_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment a command gets: the kernel's, without start-up files bash would run
    and without the tokens of a Jupyter server or hub."""
    clean = {k: v for k, v in env.items() if k not in STARTUP_VARS and not SERVER_TOKENS.match(k)}
    clean.update(PAGER="cat", GIT_PAGER="cat")
    return clean


def notice(problem: str) -> str:
    """What the front ends show once per session when commands run unconfined."""
    return (
        f"bash runs without the OS sandbox: {problem}. Only the permission rules limit what "
        "commands do (docs/security.md); set sandbox.enabled to false to run without it "
        "knowingly."
    )


@dataclass
class Spawn:
    """How to start one command: the argv (``bash -c`` inside bwrap, or bare) and its env."""

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    layout: Layout | None = None
    held: int | None = None
    """The guardian's key for this command's sweep (``process_guard.hold_sweep``)."""

    def finish(self) -> list[str]:
        """After the command: git's copies written back, protected paths it made moved
        aside, its stages removed; one line per thing the output should say."""
        if self.layout is None:
            return []
        notes = [note for staged in self.layout.staged for note in staged.finish()]
        notes += sweep.sweep(self.layout.absent)
        if self.held is not None:
            process_guard.drop_sweep(self.held)
        if self.layout.stage_root is not None:
            shutil.rmtree(self.layout.stage_root, ignore_errors=True)
        return notes


def confined(
    inner: list[str],
    cwd: Path,
    layout: Layout,
    network: bool,
    found: str,
    base: tuple[str, ...] | None = None,
) -> list[str]:
    """``inner`` started in ``cwd`` inside ``layout`` by the bubblewrap ``found``: a command's
    shell here, any other process that must live by the same rules (a contained kernel).
    ``base``: the base mounts that work with it, when known (else it is tried once)."""
    base = bwrap.tried(found, network)[1] if base is None else base
    return [found, *bwrap.namespaces(network), *layout.args(base), "--chdir", str(cwd), "--", *inner]


def command(
    text: str,
    cwd: Path,
    root: Path,
    policy: SandboxPolicy,
    guard: Guard,
    env: Mapping[str, str] | None = None,
) -> Spawn:
    """The process to start for the shell command ``text`` in ``cwd``."""
    env = os.environ if env is None else env
    clean = command_env(env)
    inner = [bwrap.shell(), "-c", text]
    found = bwrap_binary(env)
    if kernel_kind.contained():
        return Spawn(inner, clean, sandboxed=True)  # inside the kernel's sandbox already
    if not policy.enabled or found is None or start_problem(policy, env) is not None:
        return Spawn(inner, clean, sandboxed=False)
    clean.pop("SSH_AUTH_SOCK", None)  # the agent's socket is hidden too
    layout = Layout.plan(cwd, root, policy.writable, guard, env)
    swappable = bwrap.writable_home(found, layout.writable)
    if swappable is not None:
        if layout.stage_root is not None:
            shutil.rmtree(layout.stage_root, ignore_errors=True)
        raise SandboxUnsafe(
            f"The sandbox program {found} lies in {swappable}, which commands may write: a command "
            f"could replace it. Point {bwrap.BWRAP_VAR} at a bwrap in a system folder (/usr/bin/bwrap)."
        )
    argv = confined(inner, cwd, layout, policy.network, found)
    held = process_guard.hold_sweep(layout.absent) if layout.absent else None
    return Spawn(argv, clean, sandboxed=True, layout=layout, held=held)
