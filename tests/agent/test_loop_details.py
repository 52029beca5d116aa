"""Smaller loop rules OpenCode follows (issue 12, item 10), checked through the scripted model."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from scripted_server import ErrorReply, Reply, ToolCall

from jupyter_agent.context.tokens import count_tokens
from jupyter_agent.core.messages import ToolPart, ToolStateCompleted
from jupyter_agent.prompts import load_prompt

OVERFLOW = ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length.")


def _big_file(path: Path, seed: int) -> int:
    rng = random.Random(seed)
    words = [f"{rng.getrandbits(48):012x}" for _ in range(4_000)]
    path.write_text("\n".join(" ".join(words[i : i + 8]) for i in range(0, len(words), 8)))
    return count_tokens(path.read_text())


async def test_prune_also_runs_after_a_loop_that_ended_in_an_error(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    assert sum(_big_file(tmp_path / f"data{i}.txt", i) for i in range(7)) > 60_000
    reads = [
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": f"data{i}.txt"}), id=f"call_r{i}")])
        for i in range(7)
    ]
    scripted_model.queue(*reads, Reply(text="read them all"), Reply(text="turn two"))
    scripted_model.queue(ErrorReply(400, "invalid request: something the provider dislikes"))
    runtime = make_runtime()
    sid = await runtime.prompt("read the data files")
    await runtime.prompt("what next?", session_id=sid)
    await runtime.prompt("and then?", session_id=sid)  # ends in an error
    last = runtime.store.messages(sid)[-1].info
    assert last.error is not None
    tools = [p for m in runtime.store.messages(sid) for p in m.parts if isinstance(p, ToolPart)]
    pruned = [p for p in tools if isinstance(p.state, ToolStateCompleted) and p.state.time.compacted]
    assert pruned and pruned[0].call_id == "call_r0"


async def test_empty_texts_are_never_sent(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="seen"))
    runtime = make_runtime()
    sid = runtime.new_session().id
    runtime.add_user_message(sid, "", files=[("text/csv", "data:text/csv;base64,YQ==", "data.csv")])
    await runtime.run(sid, runtime.resolve_model())
    users = [m for m in scripted_model.requests[0]["body"]["messages"] if m["role"] == "user"]
    assert users == [{"role": "user", "content": "[Attached text/csv: data.csv]"}]


async def test_step_counter_counts_the_compaction_iteration(make_runtime: Any, scripted_model: Any) -> None:
    """steps = 3: failing step (1), compaction (2), replay (3) is the last step."""
    scripted_model.queue(Reply(text="one"), OVERFLOW, Reply(text="## Goal\n- s"), Reply(text="two"))
    runtime = make_runtime(steps=3)
    sid = await runtime.prompt("question one")
    await runtime.prompt("question two", session_id=sid)
    replay = scripted_model.requests[3]["body"]["messages"]
    assert "question two" in json.dumps(replay[-2:])
    assert replay[-1] == {"role": "assistant", "content": load_prompt("max_steps")}


async def test_empty_texts_are_never_wrapped(make_runtime: Any, scripted_model: Any) -> None:
    """A prompt of only an image, replayed after an overflow (step > 1): no empty reminder."""
    scripted_model.queue(Reply(text="one"), OVERFLOW, Reply(text="## Goal\n- s"), Reply(text="two"))
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    runtime.add_user_message(sid, "", files=[("image/png", "data:image/png;base64,AAAA", "plot.png")])
    await runtime.run(sid, runtime.resolve_model())
    replay = scripted_model.requests[3]["body"]["messages"]
    assert replay[-1] == {"role": "user", "content": "[Attached image/png: plot.png]"}
    assert "system-reminder" not in json.dumps(replay)


async def test_a_replayed_prompt_is_sent_as_the_user_wrote_it(make_runtime: Any, scripted_model: Any) -> None:
    """After an overflow the prompt re-sent behind the summary is the prompt itself, not a
    mid-task reminder (OpenCode 1.18 sends it plain)."""
    scripted_model.queue(Reply(text="one"), OVERFLOW, Reply(text="## Goal\n- s"), Reply(text="two"))
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    await runtime.prompt("question two", session_id=sid)
    replay = scripted_model.requests[3]["body"]["messages"]
    assert replay[-1] == {"role": "user", "content": "question two"}
    assert "system-reminder" not in json.dumps(replay)


async def test_a_message_sent_during_a_run_is_still_a_reminder(
    make_runtime: Any, scripted_model: Any
) -> None:
    """The control: a prompt that arrives while the agent works is wrapped at the next step."""
    slow = Reply(
        tool_calls=[ToolCall("glob", json.dumps({"pattern": "*.nothing"}))],
        chunk_size=2,
        delay_per_chunk=0.05,
    )
    scripted_model.queue(slow, Reply(text="done"))
    runtime = make_runtime()
    sid = runtime.new_session().id
    runtime.add_user_message(sid, "look around")
    run = asyncio.create_task(runtime.run(sid, runtime.resolve_model()))
    for _ in range(1_000):
        if scripted_model.requests:
            break
        await asyncio.sleep(0.01)
    runtime.add_user_message(sid, "also check the tests")
    await run
    second = scripted_model.requests[1]["body"]["messages"]
    assert second[-1]["role"] == "user"
    assert second[-1]["content"].startswith("<system-reminder>\nThe user sent the following message:\n")
    assert "also check the tests" in second[-1]["content"]
