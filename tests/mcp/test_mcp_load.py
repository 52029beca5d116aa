"""``%load_ext`` with MCP servers configured: as light as without them, and no server starts.

User sees: loading the extension in a notebook whose ``jupyter-agent.json`` lists MCP
servers is as quick as without them; the servers start on the first prompt that needs
tools, never before (not during the background warm-up either). Proven without timing (the
time itself is ``benchmarks/bench_load.py``'s): ``%load_ext`` imports none of the heavy
packages on the kernel's own thread, where the user would wait for them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import Kernel
from mcp_support import stdio_server

pytestmark = pytest.mark.kernel

HEAVY = ("litellm", "openai", "mcp", "httpx", "aiohttp", "tiktoken", "anywidget", "ipywidgets", "tokenizers")
RECORDED_LOAD = f"""
import json as _json, sys as _sys, threading as _threading
class _Recorder:  # notes each import of a heavy package that the kernel's own thread makes
    seen = []
    def find_spec(self, name, path=None, target=None):
        if _threading.current_thread() is _threading.main_thread() and name.split(".")[0] in {set(HEAVY)!r}:
            self.seen.append(name)
        return None
_recorder = _Recorder()
_sys.meta_path.insert(0, _recorder)
get_ipython().run_line_magic("load_ext", "jupyter_agent")
_sys.meta_path.remove(_recorder)
print(_json.dumps(sorted(set(_recorder.seen))))
"""
AFTER_WARMUP = """
import json, sys, threading
from jupyter_agent.kernel import warmup
print(json.dumps({
    "done": warmup.done.wait(300),
    "sdk": sorted(m for m in sys.modules if m.startswith(("mcp.client", "mcp.server"))),
    "threads": sorted(t.name for t in threading.enumerate()),
}))
"""


def _kernel(tmp_path: Path, server: Any) -> Kernel:
    env = {
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_AGENT_NOTEBOOK": str(tmp_path / "analysis.ipynb"),
        "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb"),
    }
    return Kernel(tmp_path, env)


def test_load_ext_with_mcp_servers_is_fast_and_starts_nothing(tmp_path: Path, scripted_server: Any) -> None:
    started = tmp_path / "started.txt"
    config = {
        "mcp": {
            "demo": stdio_server(DEMO_STARTED_FILE=str(started)),
            "tickets": {
                "type": "remote",
                "url": "http://127.0.0.1:9/mcp",
                "headers": {"Authorization": "Bearer {env:TICKETS_TOKEN}"},
            },
        }
    }
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    kernel = _kernel(tmp_path, scripted_server)
    result = kernel.execute(RECORDED_LOAD)
    assert result.status == "ok", result.error
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [], (
        "%load_ext imported a heavy package itself"
    )
    try:
        state = json.loads(kernel.execute(AFTER_WARMUP).stdout)
        assert state["done"] is True
        assert state["sdk"] == [], "the MCP SDK's client was imported before any prompt"
        assert "jupyter-agent-mcp" not in state["threads"]
        time.sleep(1.0)
        assert not started.exists(), "an MCP server started before the first prompt"
    finally:
        kernel.shutdown()
