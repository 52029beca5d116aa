"""After ``%load_ext`` a background warm-up does the first prompt's slow work ahead of it.

User sees: the first ``%agent`` answers about as fast as later ones. Proven without timing:
once the warm-up is done, the first prompt imports none of the heavy modules (litellm's
call path, the widget stack, the agent, the tokenizer) and builds no tool schema again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from kernel_harness import Kernel, wait_widget_idle, widget_traffic
from scripted_server import Reply

pytestmark = pytest.mark.kernel

HEAVY = ("litellm", "openai", "anywidget", "ipywidgets", "tiktoken", "jupyter_agent.agent", "pydantic.json")
PROBE = """
import json, sys
from jupyter_agent.kernel import warmup
print(json.dumps({"done": warmup.done.wait(300), "modules": sorted(sys.modules)}))
"""


def test_first_prompt_finds_its_work_done(start_kernel: Any, scripted_server: Any) -> None:
    kernel = start_kernel()
    before = json.loads(kernel.execute(PROBE).stdout)
    assert before["done"] is True
    assert "litellm" in before["modules"] and "jupyter_agent.ui.widget" in before["modules"]
    scripted_server.queue(Reply(text="hello back"))
    result = kernel.execute(
        "import sys\n_before = set(sys.modules)\n%agent --wait hello\n"
        "print('NEW', sorted(set(sys.modules) - _before))"
    )
    assert result.status == "ok", result.error
    new = result.stdout.split("NEW", 1)[1]
    assert not [name for name in HEAVY if f"'{name}" in new], new
    assert len(scripted_server.requests) == 1  # the warm-up never reached the network or the server


def test_load_ext_twice_warms_once(start_kernel: Any) -> None:
    kernel = start_kernel()
    assert kernel.execute("%reload_ext jupyter_agent").status == "ok"
    threads = kernel.execute(
        "import threading\nprint(sum(t.name == 'jupyter-agent-warmup' for t in threading.enumerate()))"
    )
    assert int(threads.stdout.strip()) <= 1


GATE = """
import importlib.machinery, os, sys, threading, time
class _Gated:  # litellm's loader, held in the warm-up thread until the test opens the gate
    def __init__(self, real):
        self.real = real
    def __getattr__(self, name):
        return getattr(self.real, name)
    def create_module(self, spec):
        return self.real.create_module(spec)
    def exec_module(self, module):
        while not os.path.exists({gate!r}):
            time.sleep(0.05)
        self.real.exec_module(module)
class _SlowLitellm:
    def find_spec(self, name, path=None, target=None):
        if name != "litellm" or threading.current_thread().name != "jupyter-agent-warmup":
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        spec.loader = _Gated(spec.loader)
        return spec
sys.meta_path.insert(0, _SlowLitellm())
"""


def _gated_kernel(tmp_path: Any, server: Any, gate: Any, **env: str | None) -> Kernel:
    """A kernel with a front end whose warm-up import of litellm waits for ``gate``
    (``env``: settings to change, None to leave one out)."""
    defaults = {
        "JUPYTER_AGENT_MODEL": "openai/test",
        "JUPYTER_AGENT_API_BASE": server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JPY_SESSION_NAME": str(tmp_path / "analysis.ipynb"),
    }
    merged = {**defaults, **env}
    kernel = Kernel(tmp_path, {k: v for k, v in merged.items() if v is not None})
    assert kernel.execute(GATE.format(gate=str(gate))).status == "ok"
    return kernel


def _run_all(kernel: Kernel) -> dict[str, Any]:
    """``%load_ext`` then a prompt, as Run All sends them; returns the widget's loading status."""
    assert kernel.execute("%load_ext jupyter_agent").status == "ok"
    kernel.kc.execute("%agent say hello")
    return kernel.wait_for(
        lambda m: (
            m["msg_type"] == "comm_msg"
            and "Loading the model client" in str(m["content"].get("data", {}).get("content", {}).get("text"))
        ),
        timeout=120,
    )


def _statuses(kernel: Any) -> list[dict[str, Any]]:
    return [c for c in widget_traffic(kernel) if c.get("kind") == "status"]


def test_run_all_shows_the_model_client_loading_and_keeps_the_notebook_usable(
    tmp_path: Any, scripted_server: Any
) -> None:
    """Run All: ``%load_ext`` then ``%agent`` at once, while litellm is still importing. The
    widget says what it waits for, the event loop stays free (another cell runs), and the
    answer comes once the import is done."""
    scripted_server.queue(Reply(text="hello after loading"))
    gate = tmp_path / "gate"
    kernel = _gated_kernel(tmp_path, scripted_server, gate)
    try:
        _run_all(kernel)
        assert not gate.exists()  # shown while the import was still running
        other = kernel.execute("print(6 * 7)", timeout=60)  # the event loop is not blocked
        assert other.stdout.strip() == "42"
        probe = "from jupyter_agent.kernel import warmup; print(warmup.client.is_set())"
        assert kernel.execute(probe).stdout.strip() == "False"  # litellm was still importing
        gate.touch()
        wait_widget_idle(kernel, timeout=120)
        deltas = "".join(c.get("text", "") for c in widget_traffic(kernel) if c.get("kind") == "delta")
        assert deltas == "hello after loading"
        texts = [s.get("text", "") for s in _statuses(kernel)]
        loading = texts.index("Loading the model client…")
        assert "" in texts[loading + 1 :]  # back to "Working…" once the client was loaded
    finally:
        gate.touch()
        kernel.shutdown()


def test_stop_while_the_model_client_loads_ends_the_run(tmp_path: Any, scripted_server: Any) -> None:
    gate = tmp_path / "gate"
    kernel = _gated_kernel(tmp_path, scripted_server, gate)
    try:
        loading = _run_all(kernel)
        kernel.comm_send(loading["content"]["comm_id"], {"type": "stop"})
        wait_widget_idle(kernel, timeout=60)
        assert not gate.exists()  # stopped while litellm was still importing
        notices = [c.get("text") for c in widget_traffic(kernel) if c.get("kind") == "notice"]
        assert "Stopped." in notices
        assert scripted_server.requests == []  # nothing was sent
    finally:
        gate.touch()
        kernel.shutdown()


def test_a_missing_key_found_after_the_load_is_one_clear_line(tmp_path: Any, scripted_server: Any) -> None:
    """Whether a hosted model's key is set is litellm's to say: a Run All prompt asks once
    litellm has loaded, and says what to do in the widget and the transcript."""
    gate = tmp_path / "gate"
    hosted = "anthropic/claude-sonnet-4-5"
    kernel = _gated_kernel(
        tmp_path, scripted_server, gate, JUPYTER_AGENT_MODEL=hosted, JUPYTER_AGENT_API_BASE=None,
        JUPYTER_AGENT_API_KEY=None,
    )  # fmt: skip
    try:
        _run_all(kernel)
        gate.touch()
        wait_widget_idle(kernel)
        errors = [c.get("text", "") for c in widget_traffic(kernel) if c.get("kind") == "notice"]
        assert any(f"No API key for {hosted}" in e and "ANTHROPIC_API_KEY" in e for e in errors), errors
        assert scripted_server.requests == []
    finally:
        gate.touch()
        kernel.shutdown()
