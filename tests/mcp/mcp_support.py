"""The demo MCP server (tests/mcp/servers/demo_server.py) over stdio and streamable HTTP."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SERVER = Path(__file__).parent / "servers" / "demo_server.py"


def stdio_server(**environment: str) -> dict[str, Any]:
    return {"type": "local", "command": [sys.executable, str(SERVER), "stdio"], "environment": environment}


class HttpServer:
    def __init__(self, env: dict[str, str], transport: str = "http") -> None:
        import os

        # The listening socket is made here and handed to the server: a port picked, closed and
        # passed by number could be taken by another test's kernel in between.
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        self.port = int(listener.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}/{'sse' if transport == 'sse' else 'mcp'}"
        with listener:
            self.proc = subprocess.Popen(
                [sys.executable, str(SERVER), transport, f"fd:{listener.fileno()}"],
                env={**os.environ, **env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                pass_fds=[listener.fileno()],
            )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(
                        self.proc.stderr.read().decode() if self.proc.stderr else "exited"
                    ) from None
                time.sleep(0.1)
        raise RuntimeError("demo HTTP server did not start")

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(5)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()


ODD = Path(__file__).parent / "servers" / "odd_server.py"
RAW = Path(__file__).parent / "servers" / "raw_server.py"


def odd_server(mode: str, **extra: Any) -> dict[str, Any]:
    """The misbehaving server (tests/mcp/servers/odd_server.py) in ``mode``."""
    return {"type": "local", "command": [sys.executable, str(ODD), mode], **extra}
