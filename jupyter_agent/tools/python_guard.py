"""A guard on the ``python`` tool in an ordinary kernel: the file tools' rules, applied to code.

In a contained kernel (``contained/``) the operating system bounds everything the kernel
runs. In an ordinary one the ``python`` tool runs the model's code with your rights, so
while that code runs — not your cells — an audit hook (``sys.addaudithook``) refuses, each
with one line the model reads:

- writes outside the project and the temp folder (``external_directory``: an "allow" rule
  lets them through, "deny" refuses, and "ask" refuses too, naming the rule that would
  allow it — the code runs synchronously and cannot wait for your answer);
- writes to protected paths (they always ask: the write and edit tools can);
- reads of hidden credential stores;
- starting processes (the model is told to use ``bash``, which is sandboxed), ``os.exec*``,
  loading native code through ``ctypes`` or ``cffi``, subinterpreters (which have no hook),
  tracing and ``gc`` walks (ways to reach the guard's own state).

Which code is the agent's is read from the stack, not from a flag code could clear: the
hook looks for the frame of :func:`run_guarded`, whose local ``policy`` says what holds; a
thread started from that code carries the policy with it.

It is a rule, not a sandbox: docs/security.md lists what a determined program can still do
(each item is tested in tests/security/test_python_guard.py).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from jupyter_agent.tools.protected import Guard

T = TypeVar("T")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PROCESS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty"})
NATIVE = frozenset(
    {
        "ctypes.dlopen",
        "ctypes.dlsym",
        "ctypes.dlsym/handle",
        "ctypes.call_function",
        "ctypes.cdata",
        "ctypes.string_at",
        "ctypes.wstring_at",
        "ctypes.PyObj_FromPtr",
    }
)
NATIVE_MODULES = frozenset({"cffi", "_cffi_backend"})
"""Imported first by the model's code: refused (ctypes is checked where it loads and calls)."""
_NATIVE_DIRS = tuple(
    os.path.dirname(spec.origin) + os.sep
    for spec in map(importlib.util.find_spec, ("ctypes", "cffi"))
    if spec is not None and spec.origin
)
INTERNALS = frozenset(
    {"sys.settrace", "sys.setprofile", "gc.get_referrers", "gc.get_referents", "gc.get_objects"}
)
WRITES: dict[str, tuple[tuple[int, int | None], ...]] = {
    # event: (argument index of a path written, index of its dir_fd or None)
    "os.rename": ((0, 2), (1, 3)),
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.link": ((0, 2), (1, 3)),
    "os.symlink": ((1, 2),),
    "os.truncate": ((0, None),),
    "os.utime": ((0, 3),),
    "os.setxattr": ((0, None),),
    "os.removexattr": ((0, None),),
    "sqlite3.connect": ((0, None),),
}
READS: dict[str, int] = {"os.listdir": 0, "os.scandir": 0, "os.listxattr": 0, "os.getxattr": 0}
EVENTS = (
    PROCESS
    | NATIVE
    | INTERNALS
    | WRITES.keys()
    | READS.keys()
    | {
        "open",
        "import",
        "os.exec",
        "cpython.PyInterpreterState_New",
        "object.__setattr__",
    }
)


class GuardRefused(PermissionError):
    """What the guard refused, in one line (an ``OSError``: libraries handle it as one).

    Never reaches a front end: it is raised inside the agent's ``python`` code, whose output
    (the model's to read) shows it like any error of that code."""


@dataclass(frozen=True)
class Policy:
    """What holds for one ``python`` call."""

    root: Path
    working_dir: Path
    guard: Guard
    rule: Callable[[str, str], str]
    """What the permission rules say about (permission, value), answers of "always" counted."""
    writable: tuple[Path, ...] = ()
    """The project and the temp folder (resolved)."""
    own: tuple[Path, ...] = ()
    """Where the tool itself writes while the code runs (its saved output)."""
    hidden: tuple[str, ...] = field(default=())

    @classmethod
    def make(
        cls,
        root: Path,
        working_dir: Path,
        guard: Guard,
        rule: Callable[[str, str], str],
        own: tuple[Path, ...] = (),
    ) -> Policy:
        real = [Path(os.path.realpath(p)) for p in (root, tempfile.gettempdir())]
        hidden = {os.path.realpath(p) for p in guard.hidden} | {str(p) for p in guard.hidden}
        owned = tuple(Path(os.path.realpath(p)) for p in own)
        return cls(root, working_dir, guard, rule, tuple(real), owned, tuple(sorted(hidden)))


async def run_guarded(policy: Policy, body: Callable[[], Awaitable[T]]) -> T:
    """Run ``body`` (the model's code) with ``policy`` on the stack for the hook to find."""
    _install()
    return await body()


_RUN = run_guarded.__code__
_threads: weakref.WeakKeyDictionary[threading.Thread, Policy] = weakref.WeakKeyDictionary()
_installed: list[bool] = []


def current(frame: Any) -> Policy | None:
    """The policy of the ``python`` call this frame runs under, else None."""
    while frame is not None:
        if frame.f_code is _RUN:
            return frame.f_locals.get("policy")
        frame = frame.f_back
    return _threads.get(threading.current_thread())


def _install() -> None:
    """Add the hook (it cannot be removed) and mark threads started by guarded code."""
    if _installed:
        return
    _installed.append(True)
    start = threading.Thread.start

    def guarded_start(self: threading.Thread) -> None:
        policy = current(sys._getframe(1))
        if policy is not None:
            _threads[self] = policy
        start(self)

    threading.Thread.start = guarded_start  # type: ignore[method-assign]
    sys.addaudithook(_hook)


def _hook(event: str, args: tuple[Any, ...], _events: frozenset[str] = EVENTS) -> None:
    if event not in _events:
        return
    frame = sys._getframe(1)
    policy = current(frame)
    if policy is None:
        return
    if event in NATIVE and not _asked_by_agent(frame, policy):
        return  # a library loading its own native helpers (numpy imports ctypes)
    reason = _judge(event, args, policy)
    if reason is not None:
        raise GuardRefused(f"Refused: {reason}")


def _asked_by_agent(frame: Any, policy: Policy) -> bool:
    """The native call comes from the model's code (code with no file, or a file in the
    project), not from a library it called; on a thread the model started, always."""
    while frame is not None and frame.f_code.co_filename.startswith((*_NATIVE_DIRS, "<frozen ")):
        frame = frame.f_back
    if frame is None or _threads.get(threading.current_thread()) is not None:
        return True
    name = frame.f_code.co_filename
    return name.startswith("<") or any(name.startswith(f"{r}{os.sep}") for r in map(str, policy.writable))


def _judge(event: str, args: tuple[Any, ...], policy: Policy) -> str | None:
    if event in PROCESS or event == "os.exec":
        return (
            f"the python tool does not start processes ({event}); run the command with the bash "
            "tool, which runs it in the sandbox"
        )
    if event in NATIVE or (event == "import" and args[0] in NATIVE_MODULES):
        return f"the python tool does not load or call native code through ctypes or cffi ({event})"
    if event == "cpython.PyInterpreterState_New":
        return "the python tool does not start subinterpreters (the guard would not cover them)"
    if event in INTERNALS:
        return f"the python tool's code may not trace or walk the interpreter's objects ({event})"
    if event == "object.__setattr__":
        target, name = args[0], args[1]
        mine = str(getattr(target, "__module__", "") or "").startswith("jupyter_agent.")
        return f"the python tool's code may not change jupyter-agent's own code ({name})" if mine else None
    if event == "open":
        path, mode, flags = args[0], args[1], args[2]
        if isinstance(mode, str):
            return _path(path, None, policy, any(c in mode for c in "wax+"))
        return _path(path, None, policy, bool((flags or 0) & WRITE_FLAGS))
    if event in READS:
        return _path(args[READS[event]], None, policy, False)
    for at, fd_at in WRITES.get(event, ()):
        fd = args[fd_at] if fd_at is not None and fd_at < len(args) else None
        target = args[at] if at < len(args) else None
        if event == "sqlite3.connect" and _in_memory(target):
            continue
        why = _path(target, fd, policy, True)
        if why is not None:
            return why
    return None


def _in_memory(database: Any) -> bool:
    return not isinstance(database, str | bytes | os.PathLike) or os.fsdecode(database) in ("", ":memory:")


def _resolve(path: Any, dir_fd: Any) -> str | None:
    """The real path an argument names (an fd or a path relative to a dir_fd through /proc)."""
    if isinstance(path, int):
        try:
            return os.readlink(f"/proc/self/fd/{path}")
        except OSError:
            return None
    if not isinstance(path, str | bytes | os.PathLike):
        return None
    text = os.fsdecode(os.fspath(path))
    if isinstance(dir_fd, int) and not os.path.isabs(text):
        try:
            text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
        except OSError:
            return None
    return os.path.realpath(text)


def _path(path: Any, dir_fd: Any, policy: Policy, written: bool) -> str | None:
    real = _resolve(path, dir_fd)
    if real is None:
        return None
    if any(real == h or real.startswith(h.rstrip("/") + "/") for h in policy.hidden):
        store = policy.guard.hides(Path(real))
        if store is not None:
            return f"{real} is in {store}, which holds credentials and is hidden from the agent"
    if not written:
        return None
    where = Path(real)
    if any(where == o or o in where.parents for o in policy.own):
        return None
    why = policy.guard.protects(where, policy.root, policy.working_dir)
    if why is not None:
        if policy.rule("protected", real) == "deny":
            return f'writing {real} ({why}) is denied by the "protected" rule'
        return (
            f"{real} is protected ({why}): writes to it always ask you, and the python tool's "
            "code cannot wait for an answer. Use the write or edit tool, which ask"
        )
    if any(where == w or w in where.parents for w in policy.writable):
        return None
    pattern = f"{where.parent}/*"
    action = policy.rule("external_directory", pattern)
    if action == "allow":
        return None
    if action == "deny":
        return f'writing {real} is outside the project and the "external_directory" rule denies it'
    example = json.dumps({"permission": {"external_directory": {pattern: "allow"}}})
    return (
        f'writing {real} is outside the project, where "external_directory" asks, and the python '
        f"tool's code cannot wait for an answer. Write it with the write tool (it asks), or allow "
        f"the folder in jupyter-agent.json: {example}"
    )
