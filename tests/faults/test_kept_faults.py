"""Nothing finished is lost: a spill that cannot be written, two calls at one stream index,
a stream retried after it had printed text.

Real HTTP through litellm to the scripted server, real tools, real SQLite.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from faults_support import assert_kept, first_turn, parts, small_tmpfs, tool_results
from scripted_server import Reply, ToolCall
from test_store_cli_faults import _fill

from jupyter_agent.core.messages import RetryPart, TextPart, ToolPart


async def test_spill_that_cannot_be_written_keeps_the_truncated_result(
    make_runtime: Any, scripted_server: Any
) -> None:
    """User sees: the tool card completed with the head of the output and "The full output
    could not be saved (…)"; the model gets the same, and the run goes on."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    (runtime.store.path.parent / "tool-output").write_text("a file where the folder should be")
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "seq 1 100000"}))]),
        Reply(text="counted"),
    )
    await runtime.prompt("count", session_id=sid)
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "completed", tool.state
    assert tool.state.output.rstrip().endswith("99999\n100000")
    assert "The full output could not be saved" in tool.state.output
    assert tool.state.metadata["truncated"] is True and tool.state.metadata["output_path"] is None
    assert "could not be saved" in tool_results(scripted_server.requests[-1])[-1]
    assert parts(runtime, sid, TextPart)[-1].text == "counted"
    assert_kept(runtime.store.path, before)


async def test_spill_on_a_full_disk_keeps_the_truncated_result(
    make_runtime: Any, scripted_server: Any
) -> None:
    """``tool-output/`` on a full (real, 1 MB tmpfs) disk. User sees: the tool card completed
    with the head of the output and "… could not be saved (No space left on device) …"."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    spill = runtime.store.path.parent / "tool-output"
    spill.mkdir(exist_ok=True)
    with small_tmpfs(spill, "1m"):
        _fill(spill)
        scripted_server.queue(
            Reply(tool_calls=[ToolCall("bash", json.dumps({"command": "seq 1 400000"}))]),
            Reply(text="counted"),
        )
        await runtime.prompt("count", session_id=sid)
        assert [p.name for p in spill.iterdir()] == ["filler"]  # no half-written output file
    tool = parts(runtime, sid, ToolPart)[-1]
    assert tool.state.status == "completed", tool.state
    assert "could not be saved (No space left on device)" in tool.state.output
    assert tool.state.output.rstrip().endswith("399999\n400000")
    assert parts(runtime, sid, TextPart)[-1].text == "counted"
    assert_kept(runtime.store.path, before)


async def test_two_tool_calls_at_one_stream_index_stay_apart(
    make_runtime: Any, scripted_server: Any, tmp_path: Path
) -> None:
    """User sees: two tool cards, both completed (a server sent both calls at index 0)."""
    runtime = make_runtime()
    sid, before = await first_turn(runtime, scripted_server)
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    scripted_server.queue(
        Reply(
            tool_calls=[
                ToolCall("read", json.dumps({"filePath": "a.txt"}), id="call_a"),
                ToolCall("read", json.dumps({"filePath": "b.txt"}), id="call_b"),
            ],
            same_tool_index=True,
        ),
        Reply(text="read both"),
    )
    await runtime.prompt("read a and b", session_id=sid)
    a, b = parts(runtime, sid, ToolPart)[-2:]
    assert (a.call_id, b.call_id) == ("call_a", "call_b")
    assert a.state.status == "completed" and "alpha" in a.state.output
    assert b.state.status == "completed" and "beta" in b.state.output
    results = tool_results(scripted_server.requests[-1])
    assert any("alpha" in r for r in results) and any("beta" in r for r in results)
    assert_kept(runtime.store.path, before)


def _cut_then_whole(server: Any) -> None:
    server.queue(
        Reply(text="FIRST-ATTEMPT " * 20, chunk_size=14, finish_reason=None),  # cut: no finish
        Reply(text="final answer"),
    )


def test_retry_after_streamed_text_is_marked_on_stdout(tmp_path: Path, scripted_server: Any) -> None:
    """User sees: the cut text, then "[retrying: …]" on its own line, then the final answer;
    the store keeps only the final attempt's text; exit 0."""
    _cut_then_whole(scripted_server)
    args = ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"]
    result = run_cli(args, tmp_path)
    assert result.returncode == 0, result.stderr
    before, marker, after = result.stdout.partition("\n[retrying: ")
    assert marker, result.stdout
    assert "FIRST-ATTEMPT" in before and "FIRST-ATTEMPT" not in after
    assert after.split("]\n", 1)[1].strip() == "final answer"
    # stderr holds only our own lines: no LiteLLM/httpx/asyncio log output without --debug
    ours = ("note: ", "[retry ", "session: ", "cost: ")
    assert [line for line in result.stderr.splitlines() if line and not line.startswith(ours)] == []
    from jupyter_agent.storage.sqlite_store import SqliteStore

    with SqliteStore.for_directory(tmp_path) as store:
        [session] = store.list_sessions(None)
        texts = [p.text for m in store.messages(session.id) for p in m.parts if isinstance(p, TextPart)]
        retries = [p for m in store.messages(session.id) for p in m.parts if isinstance(p, RetryPart)]
    assert texts == ["hi", "final answer"] and len(retries) == 1
    # the cut text is never sent back: the same request is asked again (docs/spec.md, the
    # differences from OpenCode, which keeps the cut text and asks the model to go on)
    cut, again = (r["body"]["messages"] for r in scripted_server.requests)
    assert again == cut


def test_retry_in_json_output_leaves_the_final_attempt(tmp_path: Path, scripted_server: Any) -> None:
    """A --json reader that applies the events (part.removed included) ends with only the
    final attempt's text, and sees the retry before the restart."""
    _cut_then_whole(scripted_server)
    result = run_cli(
        ["run", "--json", "--model", "openai/test", "--api-base", scripted_server.base_url, "hi"], tmp_path
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    texts: dict[str, str] = {}
    kinds = []
    for e in events:
        if e["type"] == "part.updated" and e["part"]["type"] == "text":
            texts[e["part"]["id"]] = e["part"]["text"]
        elif e["type"] == "part.removed":
            texts.pop(e["part_id"], None)
        if e["type"] == "part.updated" and e["part"]["type"] == "retry":
            kinds.append("retry")
        elif e["type"] == "part.removed":
            kinds.append("removed")
    assert sorted(texts.values()) == ["final answer", "hi"]
    assert kinds.index("retry") < kinds.index("removed")
