"""MCP fixtures: the demo server over HTTP, runtimes whose servers stop after the test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp_support import HttpServer


@pytest.fixture
def http_server() -> Iterator[Any]:
    started: list[HttpServer] = []

    def start(transport: str = "http", **env: str) -> HttpServer:
        server = HttpServer(env, transport)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
