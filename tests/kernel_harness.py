"""A real IPython kernel driven over ZMQ by jupyter_client, as a frontend would.

Tests execute cells, read every iopub message (streams, display data, widget comm
traffic) and can send comm messages back (Stop, approvals) exactly as the browser does.
"""

from __future__ import annotations

import os
import queue
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager


@dataclass
class CellResult:
    status: str
    stdout: str
    stderr: str
    outputs: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    payload: list[dict[str, Any]] = field(default_factory=list)
    """The execute reply's payloads (IPython's ``?`` help arrives as a "page")."""

    @property
    def shown(self) -> str:
        """What a console shows: stdout, then the plain text of each displayed output."""
        plain = [o.get("data", {}).get("text/plain", "") for o in self.outputs]
        return self.stdout + "".join(p if isinstance(p, str) else "".join(p) for p in plain)


class Kernel:
    """One kernel process with a blocking client and an iopub collector."""

    def __init__(self, cwd: Path, env: dict[str, str], spec: tuple[str, Path] | None = None) -> None:
        """``spec``: (kernelspec name, the folder of kernelspecs it is in) to start it through
        its kernelspec, as a server does; else this interpreter's ipykernel."""
        full_env = {**os.environ, **env}
        if spec is None:
            self.km = KernelManager(kernel_name="python3")
            self.km.kernel_cmd = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
        else:
            specs = KernelSpecManager(kernel_dirs=[str(spec[1])])
            self.km = KernelManager(kernel_name=spec[0], kernel_spec_manager=specs)
        self.km.start_kernel(cwd=str(cwd), env=full_env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.iopub: list[dict[str, Any]] = []

    def submit(self, code: str, cell_id: str | None = None) -> str:
        """Send a cell without waiting; ``cell_id`` as JupyterLab sends it (``metadata.cellId``)."""
        if cell_id is None:
            return str(self.kc.execute(code))
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}}
        msg = self.kc.session.msg("execute_request", dict(content, allow_stdin=False, stop_on_error=True))
        msg["metadata"] = {"cellId": cell_id}
        self.kc.shell_channel.send(msg)
        return str(msg["header"]["msg_id"])

    def execute(self, code: str, timeout: float = 120, cell_id: str | None = None) -> CellResult:
        """Run a cell and collect its outputs until the kernel is idle again."""
        msg_id = self.submit(code, cell_id)
        result = CellResult(status="ok", stdout="", stderr="")
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"cell did not finish in {timeout}s: {code[:80]!r}")
            try:
                msg = self.kc.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                continue
            self.iopub.append(msg)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                if content["name"] == "stdout":
                    result.stdout += content["text"]
                else:
                    result.stderr += content["text"]
            elif kind in ("display_data", "execute_result"):
                result.outputs.append(content)
            elif kind == "error":
                result.status = "error"
                result.error = content
            elif kind == "status" and content["execution_state"] == "idle":
                break
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        result.payload = reply["content"].get("payload", [])
        return result

    def drain(self, seconds: float) -> list[dict[str, Any]]:
        """Collect iopub messages for ``seconds`` (background work after a cell returned)."""
        got: list[dict[str, Any]] = []
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                msg = self.kc.get_iopub_msg(timeout=min(remaining, 0.2))
            except queue.Empty:
                continue
            got.append(msg)
        self.iopub.extend(got)
        return got

    def wait_for(self, predicate: Any, timeout: float = 60) -> dict[str, Any]:
        """Read iopub until a message satisfies ``predicate``."""
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            try:
                msg = self.kc.get_iopub_msg(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            self.iopub.append(msg)
            if predicate(msg):
                return msg
        raise TimeoutError("expected iopub message did not arrive")

    def comm_send(self, comm_id: str, content: dict[str, Any]) -> None:
        """Send a widget custom message, as the browser does for button clicks."""
        msg = self.kc.session.msg(
            "comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
        )
        self.kc.shell_channel.send(msg)

    def comm_open(self, target: str, data: dict[str, Any]) -> str:
        """Open a comm to ``target`` as the side panel does; returns its id."""
        import uuid

        comm_id = uuid.uuid4().hex
        msg = self.kc.session.msg("comm_open", {"comm_id": comm_id, "target_name": target, "data": data})
        self.kc.shell_channel.send(msg)
        return comm_id

    def comm_data(self, comm_id: str, data: dict[str, Any]) -> None:
        """Send raw comm data (the side panel's requests are not widget messages)."""
        self.kc.shell_channel.send(self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data}))

    def comm_close(self, comm_id: str) -> None:
        """Close a comm as the browser does when the page goes away."""
        self.kc.shell_channel.send(self.kc.session.msg("comm_close", {"comm_id": comm_id, "data": {}}))

    def interrupt(self) -> None:
        self.km.interrupt_kernel()

    def restart(self) -> None:
        self.km.restart_kernel(now=True)
        self.kc.wait_for_ready(timeout=60)

    def kill(self) -> None:
        """SIGKILL, as when the kernel dies (out of memory, a crash)."""
        import signal

        self.km.signal_kernel(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self.km.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)

    def shutdown(self) -> None:
        self.kc.stop_channels()
        if self.km.is_alive():
            self.km.shutdown_kernel(now=True)


def custom_messages(msgs: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(comm id, content) of every widget custom message in ``msgs``."""
    found = []
    for m in msgs:
        if m["msg_type"] != "comm_msg":
            continue
        data = m["content"].get("data", {})
        if data.get("method") == "custom":
            found.append((m["content"]["comm_id"], data.get("content", {})))
    return found


def widget_traffic(kernel: Kernel) -> list[dict[str, Any]]:
    """Every widget custom message the kernel has sent so far."""
    return [content for _, content in custom_messages(kernel.iopub)]


def wait_widget_idle(kernel: Kernel, timeout: float = 300) -> None:
    """Wait until a widget says its run ended (status ``idle``). A first prompt returns at
    once and may wait for litellm's import first (tens of seconds on a loaded machine)."""
    kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"].get("data", {}).get("content", {}).get("state") == "idle"
        ),
        timeout,
    )
