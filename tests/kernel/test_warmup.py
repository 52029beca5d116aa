"""After ``%load_ext`` a background warm-up does the first prompt's slow work ahead of it.

User sees: the first ``%agent`` answers about as fast as later ones. Proven without timing:
once the warm-up is done, the first prompt imports none of the heavy modules (litellm's
call path, the widget stack, the agent, the tokenizer) and builds no tool schema again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
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
