"""The no-network guard itself: public addresses fail fast, in this process and in children."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from guard import NetworkBlocked


def test_public_address_is_refused_in_process() -> None:
    with pytest.raises(NetworkBlocked, match=r"93\.184\.216\.34"):
        socket.create_connection(("93.184.216.34", 80), timeout=5)
    with pytest.raises(NetworkBlocked, match=r"example\.com"):
        socket.getaddrinfo("example.com", 443)


def test_loopback_still_works(scripted_server: object) -> None:
    port = scripted_server.port  # type: ignore[attr-defined]
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass


def test_child_processes_are_guarded() -> None:
    code = (
        "import socket\ntry:\n    socket.create_connection(('93.184.216.34', 80), timeout=5)\n"
        "except OSError as e:\n    print(type(e).__name__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), timeout=60
    )
    assert out.stdout.strip() == "NetworkBlocked"


def test_importing_the_package_does_not_import_litellm() -> None:
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import jupyter_agent"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and "jupyter_agent" in out.stderr
    assert "litellm" not in out.stderr


def test_a_swallowed_attempt_in_a_child_is_still_logged(tmp_path: Path) -> None:
    """Servers the tests start (the LiteLLM proxy) may catch the guard's error and go on;
    the log still shows that they tried."""
    log = tmp_path / "blocked.log"
    code = (
        "import socket\ntry:\n    socket.getaddrinfo('example.com', 443)\nexcept OSError:\n    pass\n"
        "print('carried on')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "JUPYTER_AGENT_NETGUARD_LOG": str(log)},
        timeout=60,
    )
    assert out.stdout.strip() == "carried on"
    assert log.read_text().splitlines() == ["test tried to resolve example.com; only loopback is allowed"]
