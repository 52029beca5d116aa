"""Compaction as OpenCode does it, checked on the requests the scripted model received.

``openai/test`` is unknown to litellm: a 32,000-token window, 4,096 output tokens, so
``usable`` = 27,904 and the verbatim tail may hold 6,976 tokens.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from cli_runner import run_cli
from scripted_server import ErrorReply, Reply, ToolCall, Usage

from jupyter_agent.core.messages import AssistantMessage, CompactionPart

WHAT = "What did we do so far?"
ANCHOR_NEW = "Create a new anchored summary from the conversation history above."
ANCHOR_UPDATE = "Update the anchored summary below using the conversation history above."
MERGE = "Preserve still-true details, remove stale details, and merge in the new facts."
CONTINUE = "Continue if you have next steps"
OVERFLOW = ErrorReply(400, "This model's maximum context length is 32000 tokens. Please reduce the length.")


def _texts(request: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of each message of a request (block contents joined)."""
    out = []
    for m in request["body"]["messages"]:
        content = m.get("content")
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
        out.append((m["role"], content or ""))
    return out


def _words(seed: int, n: int) -> str:
    rng = random.Random(seed)
    return " ".join(f"{rng.getrandbits(40):010x}" for _ in range(n))


def _history(runtime: Any, sid: str) -> list[Any]:
    return runtime.store.messages(sid)


async def test_no_tail_when_it_would_start_at_the_first_message(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(Reply(text="answer one"), Reply(text="## Goal\n- one"), Reply(text="answer two"))
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    await runtime.compact(sid)
    await runtime.prompt("question two", session_id=sid)
    summary = _texts(scripted_model.requests[1])
    # the whole first turn is summarised: question and answer, then the anchor
    assert summary[1:3] == [("user", "question one"), ("assistant", "answer one")]
    assert summary[-1][1].startswith(ANCHOR_NEW)
    after = _texts(scripted_model.requests[2])
    assert after[1:] == [("user", WHAT), ("assistant", "## Goal\n- one"), ("user", "question two")]
    part = next(p for m in _history(runtime, sid) for p in m.parts if isinstance(p, CompactionPart))
    assert part.tail_start_id is None


async def test_second_compaction_updates_the_first_from_all_turns_since(
    make_runtime: Any, scripted_model: Any
) -> None:
    big = _words(1, 3_000)  # ~7,500+ tokens: its turn does not fit the tail
    scripted_model.queue(
        Reply(text="answer one"),
        Reply(text="## Goal\n- first summary"),
        Reply(text=big),
        Reply(text="answer three"),
        Reply(text="## Goal\n- second summary"),
        Reply(text="answer four"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    await runtime.compact(sid)
    await runtime.prompt("question two", session_id=sid)
    await runtime.prompt("question three", session_id=sid)
    await runtime.compact(sid)
    await runtime.prompt("question four", session_id=sid)
    second = _texts(scripted_model.requests[4])
    assert second[0][0] == "system"
    # everything since the first summary that is not kept as the tail, and nothing older
    assert second[1:3] == [("user", "question two"), ("assistant", big)]
    assert all("question one" not in text and "first summary" not in text for _, text in second[:-1])
    anchor = second[-1][1]
    assert anchor.startswith(f"{ANCHOR_UPDATE}\n{MERGE}\n<previous-summary>\n## Goal\n- first summary\n")
    assert anchor.index("</previous-summary>") < anchor.index("## Constraints & Preferences")
    # the last turn fits the tail and is sent after the new summary, once
    after = _texts(scripted_model.requests[5])
    assert after[1:] == [
        ("user", WHAT),
        ("assistant", "## Goal\n- second summary"),
        ("user", "question three"),
        ("assistant", "answer three"),
        ("user", "question four"),
    ]


async def test_overflow_replays_the_prompt_once_after_the_summary(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(
        Reply(text="answer one"),
        OVERFLOW,
        Reply(text="## Goal\n- summarised"),
        Reply(text="answer two"),
    )
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    runtime.add_user_message(
        sid, "look at this plot", files=[("image/png", "data:image/png;base64,AAAA", "plot.png")]
    )
    await runtime.run(sid, runtime.resolve_model())
    assert len(scripted_model.requests) == 4
    summary = _texts(scripted_model.requests[2])
    assert all("look at this plot" not in text for _, text in summary)  # not summarised
    assert summary[1:3] == [("user", "question one"), ("assistant", "answer one")]
    after = _texts(scripted_model.requests[3])
    assert after[1:3] == [("user", WHAT), ("assistant", "## Goal\n- summarised")]
    sent = [text for role, text in after if "look at this plot" in text]
    assert len(sent) == 1 and after[-1][1] == sent[0]  # re-sent exactly once, last
    assert "[Attached image/png: plot.png]" in sent[0]
    assert all(CONTINUE not in text for _, text in after)
    parts = [p for m in _history(runtime, sid) for p in m.parts if isinstance(p, CompactionPart)]
    assert len(parts) == 1 and parts[0].overflow and parts[0].replay_id is not None


def test_failed_summary_does_not_block_the_next_prompt(tmp_path: Path, scripted_server: Any) -> None:
    base = ["--model", "openai/test", "--api-base", scripted_server.base_url]
    scripted_server.queue(
        Reply(text="a long answer", usage=Usage(prompt_tokens=30_000, completion_tokens=10)),
        OVERFLOW,  # the summary overflows too
    )
    first = run_cli(["run", *base, "question one"], tmp_path)
    assert first.returncode == 1 and "Session too large to compact" in first.stderr
    scripted_server.queue(Reply(text="answer two"))
    again = run_cli(["run", "--continue", *base, "question two"], tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(scripted_server.requests) == 3  # one normal request, no second summary
    last = _texts(scripted_server.requests[2])
    assert scripted_server.requests[2]["body"].get("tools")
    assert [t for r, t in last if r == "user"] == ["question one", "question two"]
    from jupyter_agent.storage.sqlite_store import SqliteStore

    store = SqliteStore.for_directory(tmp_path)
    history = store.messages(store.list_sessions()[0].id)
    failed = next(m.info for m in history if isinstance(m.info, AssistantMessage) and m.info.summary)
    assert failed.finish == "error" and failed.error is not None
    store.close()


async def test_oversized_prompt_is_refused_and_the_session_stays_usable(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(Reply(text="answer one"), Reply(text="answer two"))
    runtime = make_runtime()
    sid = await runtime.prompt("question one")
    huge = "word " * 240_000  # 1.2 MB
    await runtime.prompt(huge, session_id=sid)
    assert len(scripted_model.requests) == 1  # never sent
    errors = [e.error.message for e in runtime.events if e.type == "session.error"]
    assert errors and "too large" in errors[-1] and "32,000" in errors[-1] and "%agent new" in errors[-1]
    size = re.search(r"about ([\d,]+) tokens", errors[-1])
    assert size and int(size.group(1).replace(",", "")) > 200_000
    await runtime.prompt("question two", session_id=sid)
    users = [t for r, t in _texts(scripted_model.requests[1]) if r == "user"]
    assert users == ["question one", "question two"]
    last = _history(runtime, sid)[-1].info
    assert isinstance(last, AssistantMessage) and last.error is None


async def test_every_request_carries_max_tokens(
    make_runtime: Any, scripted_model: Any, monkeypatch: Any
) -> None:
    scripted_model.queue(Reply(text="one"), Reply(text="## Goal\n- s"), Reply(text="two"))
    runtime = make_runtime()
    sid = await runtime.prompt("q1")
    await runtime.compact(sid)
    assert [r["body"].get("max_tokens") for r in scripted_model.requests] == [4096, 4096]
    monkeypatch.setenv("JUPYTER_AGENT_OUTPUT_TOKEN_MAX", "1000")
    await runtime.prompt("q2", session_id=sid)
    assert scripted_model.requests[-1]["body"].get("max_tokens") == 1000


async def test_summary_usage_and_cost_are_recorded(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(
        Reply(text="one"), Reply(text="## Goal\n- s", usage=Usage(prompt_tokens=1234, completion_tokens=56))
    )
    runtime = make_runtime()
    sid = await runtime.prompt("q1")
    await runtime.compact(sid)
    summary = next(
        m.info for m in _history(runtime, sid) if isinstance(m.info, AssistantMessage) and m.info.summary
    )
    assert (summary.tokens.input, summary.tokens.output) == (1234, 56)
    assert summary.finish == "stop"


async def test_template_and_configurable_compaction_agent(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="one"), Reply(text="## Goal\n- s"))
    runtime = make_runtime(
        compaction={"model": "openai/summariser"},
        agent={"compaction": {"prompt": "You write summaries for the team."}},
    )
    sid = await runtime.prompt("q1")
    await runtime.compact(sid)
    body = scripted_model.requests[1]["body"]
    assert body["model"] == "summariser"
    assert body["messages"][0] == {"role": "system", "content": "You write summaries for the team."}
    anchor = body["messages"][-1]["content"]
    for needle in (
        "## Goal\n- [",
        "### Blocked\n- [",
        "## Relevant Files\n- [",
        "Rules:",
        "Keep every section",
    ):
        assert needle in anchor


def test_doom_loop_refusal_in_a_headless_run_exits_non_zero(tmp_path: Path, scripted_server: Any) -> None:
    (tmp_path / "x.txt").write_text("x")
    same = json.dumps({"filePath": "x.txt"})
    scripted_server.queue(Reply(tool_calls=[ToolCall("read", same, id=f"call_{i}") for i in range(3)]))
    result = run_cli(
        ["run", "--model", "openai/test", "--api-base", scripted_server.base_url, "loop"], tmp_path
    )
    assert result.returncode == 1
    assert "3 times in a row" in result.stderr


async def test_summary_cost_is_priced_like_any_step(make_runtime: Any, scripted_server: Any) -> None:
    """A model litellm prices: the summary's cost is its own call's, at its finish."""
    import litellm

    scripted_server.model = "openai/gpt-4o-mini"
    scripted_server.queue(
        Reply(text="one", usage=Usage(prompt_tokens=100, completion_tokens=10)),
        Reply(text="## Goal\n- s", usage=Usage(prompt_tokens=20_000, completion_tokens=500)),
    )
    runtime = make_runtime(model="openai/gpt-4o-mini")
    sid = await runtime.prompt("q1")
    await runtime.compact(sid)
    summary = next(
        m.info for m in _history(runtime, sid) if isinstance(m.info, AssistantMessage) and m.info.summary
    )
    p, c = litellm.cost_per_token(model="openai/gpt-4o-mini", prompt_tokens=20_000, completion_tokens=500)
    assert (summary.tokens.input, summary.tokens.output) == (20_000, 500)
    assert summary.cost == float(p + c) > 0


def test_oversized_prompt_from_the_cli_leaves_continue_usable(tmp_path: Path, scripted_server: Any) -> None:
    """The CLI shape of item 5: the refusal is one line, and later ``--continue`` runs work."""
    base = ["--model", "openai/test", "--api-base", scripted_server.base_url]
    scripted_server.queue(Reply(text="answer one"))
    assert run_cli(["run", *base, "question one"], tmp_path).returncode == 0
    huge = _words(7, 11_000)  # ~120 KB (one argument may hold 128 KB), ~40,000 tokens
    refused = run_cli(["run", "--continue", *base, huge], tmp_path)
    assert refused.returncode == 1
    assert "too large" in refused.stderr and "32,000" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert len(scripted_server.requests) == 1  # never sent
    scripted_server.queue(Reply(text="answer two"))
    again = run_cli(["run", "--continue", *base, "question two"], tmp_path)
    assert again.returncode == 0, again.stderr
    assert "answer two" in again.stdout
    users = [t for r, t in _texts(scripted_server.requests[-1]) if r == "user"]
    assert users == ["question one", "question two"]
