"""Refuse every network connection that is not to this machine.

Installed in the test process by ``conftest.py`` and in child processes (kernels, CLI
runs) by ``sitecustomize.py`` when ``JUPYTER_AGENT_NETGUARD=1``: a test that would reach
the internet (litellm's cost map, tiktoken downloads, a real provider) fails loudly.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

_LOCAL_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}
_installed = False


class NetworkBlocked(OSError):
    """A test tried to reach a non-loopback address."""


def is_local(host: Any) -> bool:
    if not isinstance(host, str):
        return True
    if host in _LOCAL_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def _blocked(message: str) -> NetworkBlocked:
    """The error to raise, also appended to ``$JUPYTER_AGENT_NETGUARD_LOG`` when set: a child
    process (a proxy server) may swallow the error, the log still shows the attempt."""
    log = os.environ.get("JUPYTER_AGENT_NETGUARD_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(message + "\n")
    return NetworkBlocked(message)


def _check(address: Any) -> None:
    if isinstance(address, tuple) and address and not is_local(address[0]):
        raise _blocked(f"test tried to connect to {address[0]}:{address[1]}; only loopback is allowed")


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    original_connect = socket.socket.connect
    original_connect_ex = socket.socket.connect_ex
    original_getaddrinfo = socket.getaddrinfo

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _check(address)
        return original_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _check(address)
        return original_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, bytes):
            host = host.decode()
        if host is not None and not is_local(host):
            try:
                ipaddress.ip_address(host)
            except ValueError:
                raise _blocked(f"test tried to resolve {host}; only loopback is allowed") from None
        return original_getaddrinfo(host, *args, **kwargs)

    socket.socket.connect = connect  # type: ignore[method-assign]
    socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
    socket.getaddrinfo = getaddrinfo
