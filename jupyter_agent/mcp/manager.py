"""Connections to the configured MCP servers, on one background event loop of their own.

The agent runs on the kernel's loop, on a private loop while a headless cell blocks, or
under ``asyncio.run`` in the CLI; a server outlives all of them, so its connection lives
on a daemon thread's loop and calls cross over with ``run_coroutine_threadsafe``
(Stop cancels them across the bridge). Servers start on the first prompt (``start``),
stop at ``close`` or interpreter exit. A server that fails to start or dies is reported
once, with its command and stderr tail, and its tools are left out.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import logging
import os
import shlex
import tempfile
import threading
import time
from collections.abc import Callable, Coroutine, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeVar

from jupyter_agent.core.redaction import redact
from jupyter_agent.logs import route_library_logs
from jupyter_agent.mcp.config import LocalServer, McpServerConfig
from jupyter_agent.mcp.connect import connect_local, connect_remote
from jupyter_agent.mcp.problems import closed, leaf, start_problem
from jupyter_agent.mcp.transport import (
    PromptInfo,
    ResourceInfo,
    ToolInfo,
    list_extras,
    list_tools,
    load_sdk,
    warm_up,
)

if TYPE_CHECKING:
    from jupyter_agent.tools.services import Services

State = Literal["disabled", "not started", "starting", "connected", "failed"]
T = TypeVar("T")
STDERR_TAIL = 20
CLOSE_TIMEOUT = 8.0
CHECK_AFTER = 2.0
"""Seconds of silence after which a prompt checks a server is alive before offering its tools."""
PING_TIMEOUT = 3.0
log = logging.getLogger(__name__)


OnProgress = Callable[[float, float | None, str | None], None]
"""A tool call's progress: (progress, total, message) as the server reports them."""


def _progress(on_progress: OnProgress | None) -> Any:
    """The SDK's async progress callback around ``on_progress`` (None: no progress token)."""
    if on_progress is None:
        return None

    async def report(progress: float, total: float | None, message: str | None) -> None:
        try:
            on_progress(progress, total, message)
        except Exception:  # a display problem must not fail the call
            log.debug("MCP progress callback failed", exc_info=True)

    return report


class McpCallError(Exception):
    """A call that did not produce a result; the text is for the model. Never reaches a front
    end: ``mcp/tools.py`` makes it a ``ToolError``, ``mcp/context.py`` a note or ``McpInputError``."""


@dataclass
class ServerStatus:
    """What ``%agent mcp`` shows about one server."""

    name: str
    config: McpServerConfig
    state: State = "not started"
    error: str | None = None
    tools: list[ToolInfo] = field(default_factory=list)
    resources: list[ResourceInfo] = field(default_factory=list)
    prompts: list[PromptInfo] = field(default_factory=list)
    reported: bool = False
    seen: float = 0.0
    """When it last answered (``time.monotonic``): a server idle longer is pinged first."""

    def describe(self) -> str:
        if isinstance(self.config, LocalServer):
            return shlex.join(self.config.command)
        return self.config.url


class McpManager:
    """Owns the server connections of one runtime."""

    def __init__(
        self, servers: Mapping[str, McpServerConfig], cwd: Path, env: Mapping[str, str] | None = None
    ):
        self.cwd = cwd
        self.env = os.environ if env is None else env
        self.servers = {name: _status(name, cfg) for name, cfg in servers.items()}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._clients: dict[str, Any] = {}
        self._stops: dict[str, asyncio.Event] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._stderr: dict[str, TextIO] = {}
        self._guard = threading.Lock()
        self._warming: threading.Thread | None = None
        self.reported: set[str] = set()
        """Tool-name clashes already reported."""

    # ------------------------------------------------------------ the loop

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._guard:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=loop.run_forever, name="jupyter-agent-mcp", daemon=True
                )
                self._thread.start()
                self._loop = loop
                atexit.register(self.close)
                route_library_logs()  # the SDK's log lines (bad stdout lines) stay out of cells
            return self._loop

    async def _on_loop(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the servers' loop; cancelling the caller cancels it there too."""
        future = asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
        return await asyncio.wrap_future(future)

    # ------------------------------------------------------------ lifecycle

    async def start(self, names: list[str] | None = None) -> list[str]:
        """Start servers not started yet; returns one notice per server that newly failed."""
        todo = [
            s
            for s in self.servers.values()
            if s.state == "not started" and (names is None or s.name in names)
        ]
        if todo:
            await asyncio.gather(*(self._on_loop(self._open(s)) for s in todo))
        return self.take_notices()

    def take_notices(self) -> list[str]:
        notices = []
        for s in self.servers.values():
            if s.state == "failed" and not s.reported:
                s.reported = True
                notices.append(f"MCP server '{s.name}' ({s.describe()}) {s.error}")
        return notices

    async def restart(self, names: list[str] | None = None) -> list[str]:
        """Stop the named (or all) servers and start them again; failures are reported anew."""
        chosen = [s for s in self.servers.values() if names is None or s.name in names]
        if self._loop is not None:
            await self._on_loop(self._stop_all([s.name for s in chosen]))
        for s in chosen:
            if s.state != "disabled":
                s.state, s.error, s.tools, s.reported = "not started", None, [], False
        return await self.start([s.name for s in chosen])

    def reconfigure(self, servers: Mapping[str, McpServerConfig]) -> list[str]:
        """The configuration was read again: servers whose entry changed or went away stop
        (changed ones start anew on the next prompt), new ones wait for it, the others keep
        running untouched. Returns the names stopped."""
        changed = [name for name, s in self.servers.items() if servers.get(name) != s.config]
        loop = self._loop
        running = [name for name in changed if name in self._tasks]
        if running and loop is not None and not loop.is_closed():
            with contextlib.suppress(Exception):  # a stuck server must not block the next prompt
                asyncio.run_coroutine_threadsafe(self._stop_all(running), loop).result(CLOSE_TIMEOUT)
        kept = {name: s for name, s in self.servers.items() if name not in changed}
        self.servers = {name: kept.get(name) or _status(name, cfg) for name, cfg in servers.items()}
        return changed

    def close(self) -> None:
        """Stop every server and the loop (kernel shutdown, CLI exit, config reload)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(Exception):  # a stuck server must not block the kernel's exit
            asyncio.run_coroutine_threadsafe(self._stop_all(list(self._tasks)), loop).result(CLOSE_TIMEOUT)
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(2.0)
        self._loop = None
        atexit.unregister(self.close)

    async def _stop_all(self, names: list[str]) -> None:
        for name in names:
            if name in self._stops:
                self._stops[name].set()
        tasks = [self._tasks[n] for n in names if n in self._tasks]
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_TIMEOUT)

    # ------------------------------------------------------------ one server (on the servers' loop)

    async def _open(self, status: ServerStatus) -> None:
        status.state = "starting"
        load_sdk()  # seconds on a busy machine: not counted in the server's own timeout
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        task = asyncio.get_running_loop().create_task(self._serve(status, ready))
        self._tasks[status.name] = task
        timeout = status.config.startup_timeout()
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except asyncio.TimeoutError:
            self._fail(status, f"did not start within {timeout:g} s")
            task.cancel()
            await asyncio.wait([task], timeout=CLOSE_TIMEOUT)

    async def _serve(self, status: ServerStatus, ready: asyncio.Future[None]) -> None:
        """Hold one connection open until stopped; the SDK's contexts live in this task."""
        stop = self._stops[status.name] = asyncio.Event()
        try:
            async with AsyncExitStack() as stack:
                client = await self._connect(status, stack)
                status.tools = await list_tools(client)
                status.resources, status.prompts = await list_extras(client)
                self._clients[status.name] = client
                status.state, status.seen = "connected", time.monotonic()
                self._warm_up()
                ready.set_result(None)
                await stop.wait()
        except asyncio.CancelledError:
            if status.state != "failed":
                status.state = "failed"
        except BaseException as exc:  # anyio task groups raise exception groups
            if status.state == "connected":  # the connection broke after the start
                self._fail(status, redact(f"stopped ({_reason(leaf(exc))})"))
            elif status.state != "failed":
                self._fail(status, start_problem(leaf(exc)))
        finally:
            self._clients.pop(status.name, None)
            self._stops.pop(status.name, None)
            self._tasks.pop(status.name, None)
            if status.state == "connected":
                status.state = "not started"
            err = self._stderr.pop(status.name, None)
            if err is not None:
                err.close()
            if not ready.done():
                ready.set_result(None)

    def _warm_up(self) -> None:
        """The SDK imports jsonschema on the first tool call (seconds): do it while the model
        thinks. Only once a server is up: an import cut off by the exit can hold the exit."""
        if self._warming is None:
            self._warming = threading.Thread(target=warm_up, name="jupyter-agent-mcp-warmup", daemon=True)
            self._warming.start()

    async def _connect(self, status: ServerStatus, stack: Any) -> Any:
        if isinstance(status.config, LocalServer):
            # closed when the connection ends (_serve), read for the stderr tail until then
            err = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
            self._stderr[status.name] = err
            return await connect_local(status.name, status.config, stack, self.env, self.cwd, err)
        return await connect_remote(status.name, status.config, stack, self.env)

    def _fail(self, status: ServerStatus, reason: str) -> None:
        status.state = "failed"
        status.tools, status.resources, status.prompts = [], [], []
        tail = self.stderr_tail(status.name)
        status.error = reason + (f"\nstderr (last lines):\n{tail}" if tail else "")

    def stderr_tail(self, name: str) -> str:
        err = self._stderr.get(name)
        if err is None or err.closed:
            return ""
        try:
            err.flush()
            err.seek(0)
            lines = err.read().splitlines()
        except (OSError, ValueError):
            return ""
        return redact("\n".join(lines[-STDERR_TAIL:]))

    # ------------------------------------------------------------ calls

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], on_progress: OnProgress | None = None
    ) -> Any:
        """Call a tool; a dead connection marks the server failed and raises McpCallError.

        ``on_progress(progress, total, message)`` gets the server's progress notifications (a
        progress token is sent with the call); it is called on the servers' thread."""

        async def call_tool(client: Any) -> Any:
            return await client.call_tool(tool, arguments, progress_callback=_progress(on_progress))

        return await self.request(server, f"call to '{tool}'", call_tool, f"MCP call {server}.{tool} failed")

    async def request(
        self, server: str, what: str, call: Callable[[Any], Coroutine[Any, Any, T]], failed: str
    ) -> T:
        """``call(client)`` on the servers' loop (a tool call, reading a resource, getting a
        prompt: ``what``, "call to 'x'"); every failure raises McpCallError in one line starting
        with ``failed`` or the server's answer, and a connection that closed meanwhile marks the
        server failed."""
        if self._loop is None or server not in self._clients:
            status = self.servers.get(server)
            why = f": {status.error}" if status and status.error else ""
            raise McpCallError(f"MCP server '{server}' is not running{why}")
        return await self._on_loop(self._request(server, what, call, failed))

    async def _request(
        self, server: str, what: str, call: Callable[[Any], Coroutine[Any, Any, T]], failed: str
    ) -> T:
        # the MCP SDK loads when a server starts, not with this module
        from mcp.shared.exceptions import MCPError

        client = self._clients.get(server)
        if client is None:
            raise McpCallError(f"MCP server '{server}' stopped")
        status = self.servers[server]
        try:
            result = await call(client)
        except MCPError as exc:
            if not closed(exc):
                raise McpCallError(f"MCP server '{server}' answered with an error: {exc.message}") from None
            await self._died(status, f"stopped during a {what} ({exc.message})")
            raise McpCallError(f"MCP server '{server}' {status.error}") from None
        except Exception as exc:  # the connection is fine (e.g. a result failing its schema)
            cause = leaf(exc)
            raise McpCallError(f"{failed}: {type(cause).__name__}: {cause}") from None
        status.seen = time.monotonic()
        return result

    # ------------------------------------------------------------ health

    async def check(self) -> None:
        """Ask the connected servers idle for a while for their tools: one that died since the last prompt is
        marked failed (reported once, its tools left out) before the model is offered them."""
        due = [
            s
            for s in self.servers.values()
            if s.state == "connected" and time.monotonic() - s.seen >= CHECK_AFTER
        ]
        if due and self._loop is not None:
            await asyncio.gather(*(self._on_loop(self._ping(s)) for s in due))

    async def _ping(self, status: ServerStatus) -> None:
        client = self._clients.get(status.name)
        if client is None:
            return
        try:
            # not ping: the protocol's 2026-07-28 revision removed it; listing works everywhere
            await asyncio.wait_for(client.list_tools(cache_mode="bypass"), PING_TIMEOUT)
        except asyncio.TimeoutError:
            return  # slow, not known dead: a call will tell
        except Exception as exc:
            # the MCP SDK loads when a server starts, not with this module
            from mcp.shared.exceptions import MCPError

            cause = leaf(exc)
            answered = isinstance(cause, MCPError) or type(cause).__name__ == "ValidationError"
            if not answered or closed(cause):  # hung up, or nothing listens (a listing it rejects answered)
                await self._died(status, f"stopped since the last call ({_reason(cause)})")
                return
        status.seen = time.monotonic()  # it answered (an error answer too): alive

    async def _died(self, status: ServerStatus, problem: str) -> None:
        await asyncio.sleep(0.2)  # let the last stderr lines land
        self._fail(status, problem)
        stop = self._stops.get(status.name)
        if stop is not None:
            stop.set()


def _status(name: str, config: McpServerConfig) -> ServerStatus:
    return ServerStatus(name, config, state="not started" if config.enabled else "disabled")


def _reason(exc: BaseException) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return message if type(exc).__name__ == "MCPError" else f"{type(exc).__name__}: {message}"


def manager_of(services: Services) -> McpManager | None:
    """The runtime's MCP manager, typed (``Services`` names it by the ``McpHost`` Protocol)."""
    return services.mcp if isinstance(services.mcp, McpManager) else None


def run_sync(coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
    """Run ``coro`` from synchronous code (``%agent mcp``, ``jupyter-agent mcp list``)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result(timeout)
