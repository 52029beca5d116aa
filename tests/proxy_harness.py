"""A real LiteLLM proxy process on 127.0.0.1 for team-scale tests.

It is started as a team would run it (``litellm --config proxy.yaml``): a master key and
model aliases routed to local scripted servers. It runs offline: litellm's bundled price
map, the no-network guard of the tests in the child, and every blocked connection attempt
written to :attr:`LiteLLMProxy.blocked_log` so a test can show that none was made (the proxy
would otherwise swallow the guard's error and carry on).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

MASTER_KEY = "sk-team-master"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _yaml(models: dict[str, dict[str, Any]]) -> str:
    """The proxy's config; JSON is valid YAML, so no YAML writer is needed."""
    entries = [{"model_name": alias, "litellm_params": params} for alias, params in models.items()]
    return json.dumps({"model_list": entries, "general_settings": {"master_key": MASTER_KEY}}, indent=2)


class LiteLLMProxy:
    """``start()`` waits until the proxy answers its liveness probe; ``stop()`` ends it."""

    def __init__(self, folder: Path, models: dict[str, dict[str, Any]]) -> None:
        self.folder = folder
        self.port = _free_port()
        self.config = folder / "proxy.yaml"
        self.config.write_text(_yaml(models))
        self.log = folder / "proxy.log"
        self.blocked_log = folder / "blocked-connections.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 240) -> LiteLLMProxy:
        """A port chosen here can be taken by the other test worker before the proxy binds it:
        then the proxy says so and exits, and it starts again on another port."""
        for _ in range(3):
            try:
                return self._start(timeout)
            except RuntimeError:
                if "address already in use" not in self.tail().lower():
                    raise
                self.port = _free_port()
        return self._start(timeout)

    def _start(self, timeout: float) -> LiteLLMProxy:
        script = Path(sys.executable).parent / "litellm"
        env = {
            **os.environ,
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "JUPYTER_AGENT_NETGUARD": "1",
            "JUPYTER_AGENT_NETGUARD_LOG": str(self.blocked_log),
        }
        for name in ("DATABASE_URL", "REDIS_HOST", "REDIS_URL", "LITELLM_LICENSE"):
            env.pop(name, None)
        with self.log.open("wb") as out:
            self._process = subprocess.Popen(
                [str(script), "--config", str(self.config), "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=self.folder,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the LiteLLM proxy exited at startup:\n{self.tail()}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/health/liveliness", timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the LiteLLM proxy did not start in {timeout:.0f}s:\n{self.tail()}")

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def blocked(self) -> list[str]:
        """Connections the proxy tried to open to anything but this machine."""
        if not self.blocked_log.exists():
            return []
        return self.blocked_log.read_text().splitlines()

    def stop(self) -> None:
        if self._process is None or self._process.poll() is not None:
            return
        self._process.terminate()
        try:
            self._process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=10)
