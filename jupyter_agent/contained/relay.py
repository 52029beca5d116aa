"""The kernel's channels across the network namespace: TCP outside, unix sockets inside.

With ``sandbox.network: false`` the kernel has a network of its own (its own loopback,
nothing else), so the server cannot reach TCP ports it binds. It binds unix sockets in its
run folder instead (``transport: ipc``), and this relay, outside, listens on the ports the
server expects and joins each connection to the matching socket. ZeroMQ speaks the same
protocol over both, so bytes are copied as they come. Nothing else crosses: a cell cannot
reach any port of this computer, the server's included.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

CONNECT_WAIT_S = 60.0
"""How long a connection waits for the kernel to bind its socket (it starts as we listen)."""
CHUNK = 1 << 16


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _join(path: str, client: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
    deadline = time.monotonic() + CONNECT_WAIT_S
    while True:
        try:
            inner = await asyncio.open_unix_connection(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                client[1].close()
                return
            await asyncio.sleep(0.02)
    await asyncio.gather(pump(client[0], inner[1]), pump(inner[0], client[1]))


async def _serve(ip: str, ports: dict[str, int], sockets: str, ready: threading.Event) -> None:
    servers = []
    for port in ports.values():

        async def accepted(r: asyncio.StreamReader, w: asyncio.StreamWriter, port: int = port) -> None:
            await _join(f"{sockets}-{port}", (r, w))

        servers.append(await asyncio.start_server(accepted, host=ip or None, port=port))
    ready.set()
    await asyncio.gather(*(s.serve_forever() for s in servers))


def start(ip: str, ports: dict[str, int], sockets: str) -> None:
    """Listen on ``ip``:``ports`` in a thread of this process (gone with it); raises OSError
    when a port cannot be bound."""
    ready = threading.Event()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(_serve(ip, ports, sockets, ready))
        except BaseException as exc:  # a port taken: said by start(), the kernel does not start
            failed.append(exc)
            ready.set()

    threading.Thread(target=run, name="jupyter-agent-relay", daemon=True).start()
    ready.wait(30)
    if failed:
        raise OSError(f"cannot listen on {ip} for the kernel ({failed[0]})")
