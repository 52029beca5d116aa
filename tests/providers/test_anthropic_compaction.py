"""A second compaction on Claude: the history it summarises may start with an answer.

When the first compaction split a turn (its tail starts at the assistant's answer), the
next summary request began with that assistant message, and Anthropic refuses a
conversation that does not start with the user ("first message must use the user
role"): every later summary failed. Found by an outside check after issue 12.
"""

from __future__ import annotations

import random
from typing import Any

from anthropic_server import AReply


def _words(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(f"{rng.getrandbits(40):010x}" for _ in range(n))


async def test_second_summary_after_a_split_turn_is_accepted(make_claude: Any, anthropic_server: Any) -> None:
    anthropic_server.queue(
        AReply(text="answer one"),
        AReply(text="## Goal\n- first summary"),
        AReply(text="answer two"),
        AReply(text="## Goal\n- second summary"),
        AReply(text="answer three"),
    )
    # the big first question does not fit the tail; its short answer does
    runtime = make_claude(compaction={"preserve_recent_tokens": 400})
    sid = await runtime.prompt("question one " + _words(1, 1500))
    await runtime.compact(sid)
    await runtime.prompt("question two", session_id=sid)
    await runtime.compact(sid)
    await runtime.prompt("question three", session_id=sid)
    assert anthropic_server.refusals == []
    second = anthropic_server.requests[3]["body"]["messages"]
    assert second[0]["role"] == "user"
    assert "answer one" in str(second) and "first summary" in str(second[-1])
    last = str(anthropic_server.requests[4]["body"]["messages"])
    assert "second summary" in last and "first summary" not in last
