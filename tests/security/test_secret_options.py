"""A key written in the config's model options is a key the agent uses: hidden like one.

Found by an outside check after issue 13: with ``models.<id>.options.api_key`` set to a
literal, ``cat jupyter-agent.json`` sent the key back to the model and into the store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripted_server import Reply, ToolCall

from jupyter_agent.core.messages import ToolPart

KEY = "literal-options-key-4f8a2c91"
HEADER = "header-token-7d3b9e55"


async def test_option_keys_never_reach_the_model_or_the_store(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    options = {"api_key": KEY, "extra_headers": {"X-Api-Token": HEADER}, "temperature": 0.2}
    config = {"models": {scripted_server.model: {"options": options}}}
    (tmp_path / "jupyter-agent.json").write_text(json.dumps(config))
    runtime = make_runtime(**config)
    call = ToolCall("bash", json.dumps({"command": "cat jupyter-agent.json"}))
    scripted_server.queue(Reply(tool_calls=[call]), Reply(text="ok"))
    sid = await runtime.prompt("show the config")
    part = next(p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart))
    assert part.state.status == "completed"
    assert "[REDACTED:models." in part.state.output and "0.2" in part.state.output
    sent = json.dumps(scripted_server.requests[1]["body"]["messages"])
    assert KEY not in sent and HEADER not in sent
    runtime.store.close()
    for path in (tmp_path / ".jupyter-agent").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes() and HEADER.encode() not in path.read_bytes(), path
