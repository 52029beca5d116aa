"""The model's endpoints from a contained kernel without a network (``sandbox.network: false``).

The agent in the kernel must still reach its model. Each endpoint the configuration names
(``api_base``, a model's or agent's ``api_base``/``base_url``, the usual host of a provider
named in a model string) gets an address on the kernel's own loopback: a loopback endpoint
its own (``127.0.0.1:11434`` for Ollama), a host name one of ``127.0.0.2``… written into the
sandbox's ``/etc/hosts``, so TLS still checks the real name. Inside, the kernel listens
there (``main``, run by the sandbox before ipykernel) and hands each connection to a unix
socket in its run folder with the endpoint it was for; outside, the launcher connects only
to the endpoints on its list (``serve``). Nothing else leaves: not another host, not another
port of this computer.

Code in the kernel can use these connections too, with any key: data can leave through the
provider. Name a gateway you control (a LiteLLM proxy holding the keys) where that matters.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import runpy
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass

from jupyter_agent.contained.relay import pump

HEADER_MAX = 300


@dataclass(frozen=True)
class Route:
    endpoint: str
    """``host:port`` outside."""
    listen: str
    """The loopback address the kernel connects to for it."""
    port: int


def routes(allowed: Iterable[str]) -> tuple[list[Route], list[str]]:
    """A loopback address inside for each endpoint, and the ``/etc/hosts`` lines that name
    them (an address that is neither loopback nor a name cannot be reached: left out)."""
    out: list[Route] = []
    names: dict[str, str] = {}
    for endpoint in allowed:
        host, _, port = endpoint.rpartition(":")
        host = host.strip("[]")
        if host == "localhost":
            out.append(Route(endpoint, "127.0.0.1", int(port)))
            continue
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            listen = names.setdefault(host, f"127.0.0.{len(names) + 2}")
            out.append(Route(endpoint, listen, int(port)))
            continue
        if address.is_loopback and address.version == 4:
            out.append(Route(endpoint, host, int(port)))
    hosts = ["127.0.0.1 localhost", *(f"{ip} {name}" for name, ip in names.items())]
    return out, hosts


# ---------------------------------------------------------------- outside: the launcher


async def _outside(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, allowed: set[str]) -> None:
    try:
        line = await asyncio.wait_for(reader.readuntil(b"\n"), 10)
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, OSError):
        writer.close()
        return
    endpoint = line[:HEADER_MAX].decode("ascii", "replace").strip()
    if endpoint not in allowed:
        writer.close()
        return
    host, _, port = endpoint.rpartition(":")
    try:
        far = await asyncio.open_connection(host.strip("[]"), int(port))
    except OSError:
        writer.close()
        return
    await asyncio.gather(pump(reader, far[1]), pump(far[0], writer))


def serve(path: str, allowed: Iterable[str]) -> None:
    """Answer the kernel's connections on the unix socket ``path`` (a thread of the launcher)."""
    chosen = set(allowed)
    ready = threading.Event()

    async def run() -> None:
        server = await asyncio.start_unix_server(lambda r, w: _outside(r, w, chosen), path, limit=HEADER_MAX)
        ready.set()
        await server.serve_forever()

    threading.Thread(target=asyncio.run, args=(run(),), name="jupyter-agent-egress", daemon=True).start()
    ready.wait(30)


# ---------------------------------------------------------------- inside: the kernel's process


async def _inside(route: Route, path: str) -> None:
    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            far = await asyncio.open_unix_connection(path)
        except OSError:
            writer.close()
            return
        far[1].write(f"{route.endpoint}\n".encode("ascii"))
        await asyncio.gather(pump(reader, far[1]), pump(far[0], writer))

    server = await asyncio.start_server(accepted, route.listen, route.port)
    await server.serve_forever()


def main(argv: list[str]) -> None:
    """``python -m jupyter_agent.contained.egress ROUTES SOCKET -f CONNECTION …``: listen for
    the routes, then run ipykernel in this process with the rest of the arguments."""
    listed, path, rest = json.loads(argv[0]), argv[1], argv[2:]
    chosen = [Route(**r) for r in listed]

    async def all_routes() -> None:
        await asyncio.gather(*(_inside(r, path) for r in chosen))

    threading.Thread(
        target=asyncio.run, args=(all_routes(),), name="jupyter-agent-egress", daemon=True
    ).start()
    sys.argv = ["ipykernel_launcher", *rest]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
