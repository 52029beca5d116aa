"""The session title's model call costs money: `%agent sessions` and the session budget count it
(a real kernel, litellm pricing gpt-4o-mini at the scripted server). The CLI's cost line is
checked in tests/providers/test_cost.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from kernel_harness import Kernel
from scripted_server import Reply, Usage

pytestmark = pytest.mark.kernel
PROMPT_PRICE, OUTPUT_PRICE = 0.15e-6, 0.6e-6  # gpt-4o-mini per token (litellm's map)


def test_the_title_call_counts_in_the_listing_and_the_budget(tmp_path: Path, scripted_server: Any) -> None:
    (tmp_path / "jupyter-agent.json").write_text(json.dumps({"budget": {"session_usd": 0.01}}))
    env = {
        "JUPYTER_AGENT_MODEL": "openai/gpt-4o-mini",
        "JUPYTER_AGENT_API_BASE": scripted_server.base_url,
        "JUPYTER_AGENT_API_KEY": "sk-test",
        "JUPYTER_AGENT_NOTEBOOK": str(tmp_path / "analysis.ipynb"),
    }
    # the step is cheap (10 in, 5 out); the title reads a long first prompt: $0.03
    scripted_server.title_reply = Reply(
        text="Costly title", usage=Usage(prompt_tokens=200_000, completion_tokens=10)
    )
    scripted_server.queue(Reply(text="hello there"))
    kernel = Kernel(tmp_path, env)
    try:
        assert kernel.execute("%load_ext jupyter_agent").status == "ok"
        first = kernel.execute("%agent hello")
        assert first.status == "ok", first.error
        assert len(scripted_server.completions) == 1  # the title
        step = 10 * PROMPT_PRICE + 5 * OUTPUT_PRICE
        title = 200_000 * PROMPT_PRICE + 10 * OUTPUT_PRICE
        listing = kernel.execute("%agent sessions")
        plain = "".join(o["data"].get("text/plain", "") for o in listing.outputs)
        assert "Costly title" in plain and f"${step + title:.4f}" in plain, plain

        # the session spent $0.03 of its $0.01: the next prompt is refused, no call is made
        refused = kernel.execute("%agent --no-raise and again")
        assert refused.status == "ok", refused.error
        shown = "".join(o["data"].get("text/plain", "") for o in refused.outputs)
        assert f"session budget of $0.01 is used up (spent ${step + title:.4f})" in shown, shown
        # without --no-raise a headless run stops there: the budget is a failed run for CI
        stopped = kernel.execute("%agent and once more")
        assert stopped.status == "error" and stopped.error is not None
        assert stopped.error["ename"] == "AgentRunError" and "session budget" in stopped.error["evalue"]
        assert len(scripted_server.requests) == 1
    finally:
        kernel.shutdown()
