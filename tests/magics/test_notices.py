"""The unknown-context-window notice reaches every session that uses the model, once, as a
sentence (it used to reach only the first run of the process, as raw JSON)."""

from __future__ import annotations

from typing import Any

import pytest
from scripted_server import Reply

pytestmark = pytest.mark.kernel
NOTICE = "does not know the context window of openai/test"


def _transcript(kernel: Any, line: str) -> str:
    result = kernel.execute(line)
    assert result.status == "ok", result.error
    (shown,) = [o for o in result.outputs if "text/plain" in o.get("data", {}) and o.get("metadata")]
    return str(shown["data"]["text/plain"])


def test_every_session_is_told_once(start_kernel: Any, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    kernel = start_kernel()
    first = _transcript(kernel, "%agent --wait first")
    again = _transcript(kernel, "%agent --wait same session")
    other = _transcript(kernel, "%agent --wait --new another session")
    assert NOTICE in first and NOTICE not in again and NOTICE in other
    (line,) = [x for x in first.splitlines() if NOTICE in x]
    assert "{" not in line and line.rstrip().endswith("."), line
    assert "32,000 tokens" in line and "jupyter-agent.json" in line
