"""A real JupyterHub on 127.0.0.1 for the team deployment test (tests/test_jupyterhub.py).

Set up as a small team's admin would: `jupyterhub` from the package index with its own
proxy (`configurable-http-proxy` from npm, installed into .venv/node by scripts/install.sh),
the dummy authenticator, and `SimpleLocalProcessSpawner`, which runs every user's server as
this OS user with a home folder of its own (creating OS accounts from a test would change
the machine for everyone on it). The admin's jupyter-agent file is named for every server
through the spawner's environment, and each user gets their own gateway key from a
pre-spawn hook. Tests talk to it as a client does: the hub's REST API, then each user's
server and kernel websocket through the proxy.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

ROOT = Path(__file__).resolve().parents[1]
CHP = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
SERVICE_TOKEN = "hub-test-service-token"
KEPT = ["JUPYTER_AGENT_NETGUARD", "JUPYTER_AGENT_NETGUARD_LOG", "LITELLM_LOCAL_MODEL_COST_MAP"]
KEPT += ["TIKTOKEN_CACHE_DIR", "HF_HUB_OFFLINE", "JUPYTER_PLATFORM_DIRS", "MPLBACKEND"]
KEPT += ["JUPYTER_AGENT_DATA_DIR"]  # the files the test run trusts (tests/conftest.py)


def missing() -> str | None:
    """Why the hub cannot start here (what scripts/install.sh would install), or None."""
    if shutil.which("jupyterhub", path=str(Path(sys.executable).parent)) is None:
        return "jupyterhub is not installed (the `hub` extra; scripts/install.sh installs it)"
    if not CHP.exists():
        return "configurable-http-proxy is not installed (scripts/install.sh installs it from npm)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


CONFIG = """
import json
c = get_config()  # noqa: F821
S = json.loads({settings!r})
c.JupyterHub.bind_url = f"http://127.0.0.1:{{S['port']}}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{{S['hub_port']}}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{{S['api_port']}}"
c.ConfigurableHTTPProxy.command = [S["chp"]]
c.ConfigurableHTTPProxy.auth_token = "chp-" + S["service_token"]
c.JupyterHub.db_url = f"sqlite:///{{S['folder']}}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{{S['folder']}}/cookie_secret"
c.JupyterHub.pid_file = f"{{S['folder']}}/jupyterhub.pid"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = "not-a-real-deployment"
c.Authenticator.allowed_users = set(S["users"])
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = S["homes"] + "/{{username}}"
c.Spawner.cmd = [S["singleuser"]]
# CI machines run as root; hidden folders (.jupyter-agent) listed, so a test can show whose they are
c.Spawner.args = ["--ServerApp.allow_root=True", "--ContentsManager.allow_hidden=True"]
c.Spawner.ip = "127.0.0.1"
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
c.Spawner.env_keep.extend(S["kept"])  # the tests' no-network guard, in every server and kernel
# the admin's part: one file for every user's agent, and each user's own gateway key
c.Spawner.environment = {{"JUPYTER_AGENT_SYSTEM_CONFIG": S["admin_file"]}}

def give_key(spawner):
    spawner.environment["JUPYTER_AGENT_API_KEY"] = S["keys"][spawner.user.name]

c.Spawner.pre_spawn_hook = give_key
c.JupyterHub.services = [{{"name": "tester", "api_token": S["service_token"]}}]
c.JupyterHub.load_roles = [
    {{"name": "tester", "services": ["tester"],
     "scopes": ["admin:users", "admin:servers", "tokens", "list:users", "read:users"]}},
]
"""


class Hub:
    """``start()`` waits until the hub's API answers; ``stop()`` ends it and every server."""

    def __init__(self, folder: Path, admin_file: Path, keys: dict[str, str]) -> None:
        self.folder = folder
        self.homes = folder / "home"
        self.homes.mkdir(parents=True, exist_ok=True)
        self.port = _free_port()
        self.log = folder / "jupyterhub.log"
        self.blocked_log = folder / "blocked-connections.log"
        settings = {
            "port": self.port,
            "hub_port": _free_port(),
            "api_port": _free_port(),
            "chp": str(CHP),
            "service_token": SERVICE_TOKEN,
            "folder": str(folder),
            "users": sorted(keys),
            "homes": str(self.homes),
            "singleuser": str(Path(sys.executable).with_name("jupyterhub-singleuser")),
            "kept": KEPT,
            "admin_file": str(admin_file),
            "keys": keys,
        }
        self.config = folder / "jupyterhub_config.py"
        self.config.write_text(CONFIG.format(settings=json.dumps(settings)))
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def home(self, user: str) -> Path:
        return self.homes / user

    def start(self, timeout: float = 120) -> Hub:
        env = {**os.environ, "JUPYTER_AGENT_NETGUARD_LOG": str(self.blocked_log)}
        with self.log.open("wb") as out:
            self._process = subprocess.Popen(
                [str(Path(sys.executable).with_name("jupyterhub")), "-f", str(self.config)],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"JupyterHub exited at startup:\n{self.tail()}")
            try:
                if self.request("GET", "/hub/api/")[0] == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"JupyterHub did not start in {timeout:.0f}s:\n{self.tail()}")

    def tail(self, lines: int = 60) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def blocked(self) -> list[str]:
        return self.blocked_log.read_text().splitlines() if self.blocked_log.exists() else []

    def stop(self) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        os.killpg(self._process.pid, signal.SIGTERM)  # the hub stops the servers it spawned
        try:
            self._process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self._process.pid, signal.SIGKILL)
            self._process.wait(timeout=10)

    # ------------------------------------------------------------------ as a client

    def request(
        self, method: str, path: str, token: str = SERVICE_TOKEN, body: Any = None
    ) -> tuple[int, Any]:
        """One HTTP request through the proxy: (status, parsed JSON or text)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Authorization": f"token {token}", "Content-Type": "application/json"}
        req = urllib.request.Request(f"{self.base_url}{path}", data=data, method=method, headers=headers)
        opener = urllib.request.build_opener(_NoRedirect)
        try:
            with opener.open(req, timeout=60) as r:
                status, raw = r.status, r.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        try:
            return status, json.loads(raw or b"null")
        except ValueError:
            return status, raw.decode(errors="replace")

    def spawn(self, *users: str, timeout: float = 180) -> None:
        """Start these users' servers together (each starts a process: the slow part), and
        wait until all are ready."""
        for user in users:
            status, body = self.request("POST", f"/hub/api/users/{user}/server")
            assert status in (201, 202), (status, body)
        waiting = set(users)
        deadline = time.monotonic() + timeout
        while waiting and time.monotonic() < deadline:
            for user in sorted(waiting):
                _, info = self.request("GET", f"/hub/api/users/{user}")
                if ((info.get("servers") or {}).get("", {})).get("ready"):
                    waiting.discard(user)
            time.sleep(0.5)
        if waiting:
            raise RuntimeError(f"{sorted(waiting)} servers did not start:\n{self.tail()}")

    def token_for(self, user: str) -> str:
        status, body = self.request("POST", f"/hub/api/users/{user}/tokens", body={"note": "test"})
        assert status in (200, 201), (status, body)
        return str(body["token"])

    def new_kernel(self, user: str, token: str) -> str:
        status, body = self.request("POST", f"/user/{user}/api/kernels", token, {"name": "python3"})
        assert status == 201, (status, body)
        return str(body["id"])

    async def execute(self, user: str, token: str, kernel: str, code: str, timeout: float = 180) -> str:
        """Run a cell over the kernel's websocket (through the proxy): its text output; an
        error in the cell is a failure."""
        url = f"ws://127.0.0.1:{self.port}/user/{user}/api/kernels/{kernel}/channels"
        conn = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {token}"}))
        msg_id = uuid.uuid4().hex
        header = {
            "msg_id": msg_id,
            "msg_type": "execute_request",
            "session": uuid.uuid4().hex,
            "username": user,
            "version": "5.3",
            "date": "",
        }
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}}
        content.update(allow_stdin=False, stop_on_error=True)
        message = {"header": header, "parent_header": {}, "metadata": {}, "content": content}
        await conn.write_message(json.dumps({**message, "channel": "shell", "buffers": []}))
        out: list[str] = []
        failed = False
        try:
            while True:
                raw = await asyncio.wait_for(conn.read_message(), timeout)
                if raw is None:
                    raise RuntimeError(f"the kernel websocket closed:\n{''.join(out)}")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id or msg["channel"] != "iopub":
                    continue
                kind, body = msg["msg_type"], msg["content"]
                if kind == "stream":
                    out.append(body["text"])
                elif kind in ("display_data", "execute_result"):
                    out.append(body["data"].get("text/plain", ""))
                elif kind == "error":
                    failed = True
                    out.append("\n".join(body["traceback"]))
                elif kind == "status" and body["execution_state"] == "idle":
                    break
        finally:
            conn.close()
        text = "".join(out)
        assert not failed, text
        return text


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A refused request shows its own status, not the login page it redirects to."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None
