"""Context management end to end: truncation, compaction and prune as the model sees them."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from scripted_server import Reply, ToolCall, Usage

from jupyter_agent.context.compaction import ANCHOR_NEW, CONTINUE_MESSAGE
from jupyter_agent.context.to_provider import CLEARED
from jupyter_agent.context.tokens import count_tokens
from jupyter_agent.core.messages import AssistantMessage, CompactionPart


def test_bash_output_is_truncated_with_saved_file(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "seq 1 5000"}))]),
        Reply(text="Counted."),
    )
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "count"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    seen = next(m for m in scripted_server.requests[1]["body"]["messages"] if m["role"] == "tool")["content"]
    assert seen.startswith("...3001 lines truncated...")
    path = seen.split("Full output saved to: ")[1].split("\n")[0]
    assert Path(path).is_file() and Path(path).read_text().split("\n")[0] == "1"
    assert Path(path).parent == tmp_path / ".jupyter-agent" / "tool-output"
    lines = seen.split("\n\n")[-1].split("\n")
    assert lines[0] == "3002" and lines[-2] == "5000"


def test_overflow_triggers_compaction_then_summary_leads(tmp_path: Path, scripted_server: Any) -> None:
    summary = "## Goal\nLoad the data\n## Progress\n### Done\n(none)"
    scripted_server.queue(
        Reply(text="first answer", usage=Usage(prompt_tokens=30_000, completion_tokens=10)),
        Reply(text=summary),
        Reply(text="continuing after the summary"),
    )
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "analyse"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert len(scripted_server.requests) == 3
    compaction_request = scripted_server.requests[1]["body"]
    assert not compaction_request.get("tools")
    assert compaction_request["messages"][-1]["content"].startswith(ANCHOR_NEW)
    assert "## Constraints & Preferences" in compaction_request["messages"][-1]["content"]
    after = scripted_server.requests[2]["body"]["messages"]
    assert after[0]["role"] == "system"
    assert after[1] == {"role": "user", "content": "What did we do so far?"}
    assert after[2]["role"] == "assistant" and after[2]["content"] == summary
    assert after[-1] == {"role": "user", "content": CONTINUE_MESSAGE}
    from jupyter_agent.storage.sqlite_store import SqliteStore

    store = SqliteStore.for_directory(tmp_path)
    history = store.messages(store.list_sessions()[0].id)
    parts = [p for m in history for p in m.parts if isinstance(p, CompactionPart)]
    assert len(parts) == 1 and parts[0].auto and not parts[0].overflow
    assert any(isinstance(m.info, AssistantMessage) and m.info.summary for m in history)
    store.close()


def _big_file(path: Path, seed: int) -> int:
    rng = random.Random(seed)
    words = [f"{rng.getrandbits(48):012x}" for _ in range(4_000)]
    text = "\n".join(" ".join(words[i : i + 8]) for i in range(0, len(words), 8))
    path.write_text(text)
    return count_tokens(text)


async def test_prune_clears_oldest_outputs_and_keeps_pairs(
    make_runtime: Any, scripted_model: Any, tmp_path: Path
) -> None:
    sizes = [_big_file(tmp_path / f"data{i}.txt", i) for i in range(7)]
    assert sum(sizes) > 60_000
    reads = [
        Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": f"data{i}.txt"}), id=f"call_r{i}")])
        for i in range(7)
    ]
    scripted_model.queue(
        *reads,
        Reply(text="read them all"),
        Reply(text="turn two"),
        Reply(text="turn three"),
        Reply(text="turn four"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("read the data files")
    await runtime.prompt("what next?", session_id=sid)
    await runtime.prompt("and then?", session_id=sid)
    await runtime.prompt("one more", session_id=sid)
    last = scripted_model.requests[-1]["body"]["messages"]
    results = {m["tool_call_id"]: m["content"] for m in last if m["role"] == "tool"}
    calls = [c["id"] for m in last if m.get("tool_calls") for c in m["tool_calls"]]
    assert calls == [f"call_r{i}" for i in range(7)] and list(results) == calls
    cleared = [cid for cid, content in results.items() if content == CLEARED]
    assert cleared and cleared == calls[: len(cleared)]  # the oldest ones
    assert results["call_r6"] != CLEARED  # the newest output is protected


def test_compaction_that_overflows_leaves_history_intact(tmp_path: Path, scripted_server: Any) -> None:
    from scripted_server import ErrorReply

    scripted_server.queue(Reply(text="first"), Reply(text="second"))
    for prompt in ("one", "two"):
        result = run_cli(
            ["run", "--continue", "--model", "openai/test", "--api-base", scripted_server.base_url, prompt],
            tmp_path,
        )
        assert result.returncode == 0, result.stderr
    scripted_server.queue(ErrorReply(400, "This model's maximum context length is 32000 tokens"))
    result = run_cli(["compact", "--model", "openai/test", "--api-base", scripted_server.base_url], tmp_path)
    assert result.returncode == 1 and "Session too large to compact" in result.stderr
    scripted_server.queue(Reply(text="third"))
    again = run_cli(
        ["run", "--continue", "--model", "openai/test", "--api-base", scripted_server.base_url, "three"],
        tmp_path,
    )
    assert again.returncode == 0, again.stderr
    users = [m["content"] for m in scripted_server.requests[-1]["body"]["messages"] if m["role"] == "user"]
    assert users == ["one", "two", "three"]  # nothing was cut


def test_manual_compact_from_therun_cli(tmp_path: Path, scripted_server: Any) -> None:
    scripted_server.queue(Reply(text="answer one"), Reply(text="## Goal\nsummarised"), Reply(text="after"))
    assert (
        run_cli(
            ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "q1"], tmp_path
        ).returncode
        == 0
    )
    compact = run_cli(["compact", "--model", "openai/test", "--api-base", scripted_server.base_url], tmp_path)
    assert compact.returncode == 0, compact.stderr
    assert not scripted_server.requests[1]["body"].get("tools")
    assert (
        run_cli(
            ["run", "--continue", "--model", "openai/test", "--api-base", scripted_server.base_url, "q2"],
            tmp_path,
        ).returncode
        == 0
    )
    sent = scripted_server.requests[2]["body"]["messages"]
    assert sent[1]["content"] == "What did we do so far?" and sent[2]["content"] == "## Goal\nsummarised"
