"""The title request (SPEC "Compaction": every request carries ``max_tokens = max_output(model)``)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from scripted_server import Reply

from jupyter_agent.core.messages import AssistantMessage


async def test_the_title_request_may_use_the_model_output_limit(
    make_runtime: Any, scripted_model: Any
) -> None:
    """A cap of a few tokens leaves a reasoning model nothing to answer with (OpenCode 1.18
    sends the model's output limit, as for every request)."""
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="Monthly sales")
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()  # asked beside the answer, never waited for by the run
    assert runtime.store.get_session(sid).title == "Monthly sales"
    step, title = scripted_model.requests[0]["body"], scripted_model.completions[0]["body"]
    assert title["max_tokens"] == step["max_tokens"] > 1_000


async def test_a_small_model_uses_its_own_configured_limit(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="Monthly sales")
    runtime = make_runtime(small_model="openai/small", models={"openai/small": {"limit": {"output": 1234}}})
    await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()
    assert scripted_model.completions[0]["body"]["max_tokens"] == 1234


async def test_reasoning_before_the_title_is_not_the_title(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(
        text="<think>\nThe user wants sales.\n</think>\n\n  Monthly sales\nmore"
    )
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()  # asked beside the answer, never waited for by the run
    assert runtime.store.get_session(sid).title == "Monthly sales"


async def test_a_reply_cut_off_while_thinking_names_the_session_after_its_prompt(
    make_runtime: Any, scripted_model: Any
) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="<think>\nThe user wants a title about sales, so")
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()  # asked beside the answer, never waited for by the run
    assert runtime.store.get_session(sid).title == "analyse sales by month"


async def test_the_title_is_asked_for_beside_the_answer(make_runtime: Any, scripted_model: Any) -> None:
    """As OpenCode: the title request goes out with the first step, not after the answer."""
    scripted_model.queue(Reply(text="a slow answer " * 20, chunk_size=4, delay_per_chunk=0.01))
    scripted_model.title_reply = Reply(text="Monthly sales")
    runtime = make_runtime()
    answered: list[bool] = []
    ask = scripted_model.request

    async def request(request: Any) -> Any:
        store = runtime.store
        finished = [
            m.info.finish
            for s in store.list_sessions(None)
            for m in store.messages(s.id)
            if isinstance(m.info, AssistantMessage)
        ]
        answered.append("stop" in finished)
        return await ask(request)

    scripted_model.request = request
    sid = await runtime.prompt("analyse sales by month")
    assert answered == [False]
    assert runtime.store.get_session(sid).title == "Monthly sales"


async def test_the_run_ends_without_waiting_for_the_title(make_runtime: Any, scripted_model: Any) -> None:
    """Issue 40 item 11: a new session's run (and its lease) ended one title round-trip late.
    The title may come any time later: it is stored then, and published for the pickers."""
    scripted_model.queue(Reply(text="hello"))
    gate = asyncio.Event()
    ask = scripted_model.request

    async def slow_title(request: Any) -> Any:
        await gate.wait()
        return await ask(request)

    scripted_model.request = slow_title
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    # the answer is in, the session free: another process may run it now
    assert not runtime.busy(sid) and runtime.store.leases.claim(sid)
    runtime.store.leases.release(sid)
    assert runtime.store.get_session(sid).title.startswith("New session - ")
    updates: list[Any] = []
    runtime.bus.subscribe(updates.append, "session.updated")
    gate.set()
    await runtime.settle_titles()
    assert runtime.store.get_session(sid).title == "Scripted session title"
    assert [u.session.title for u in updates] == ["Scripted session title"]


async def test_a_title_that_fails_leaves_a_readable_name(
    make_runtime: Any, scripted_model: Any, caplog: Any
) -> None:
    """It failed silently and the session kept "New session - 2026-11-28T09:44:48+00:00"."""
    scripted_model.queue(Reply(text="hello"))

    async def refused(request: Any) -> Any:
        raise RuntimeError("the server has no title for you")

    scripted_model.request = refused
    runtime = make_runtime()
    caplog.set_level(logging.DEBUG, logger="jupyter_agent.agent.title")
    sid = await runtime.prompt("load sales.csv into a frame and plot revenue by month for the board")
    await runtime.settle_titles()
    assert runtime.store.get_session(sid).title == "load sales.csv into a frame and plot revenue…"
    said = [r for r in caplog.records if "no title" in r.getMessage()]
    assert len(said) == 1 and "the server has no title for you" in said[0].getMessage()


async def test_a_rename_before_the_title_comes_wins(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    gate = asyncio.Event()
    ask = scripted_model.request

    async def slow_title(request: Any) -> Any:
        await gate.wait()
        return await ask(request)

    scripted_model.request = slow_title
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    runtime.rename_session(sid, "Mine")
    gate.set()
    await runtime.settle_titles()
    assert runtime.store.get_session(sid).title == "Mine"


async def test_a_key_less_server_gets_a_title(
    make_runtime: Any, scripted_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """vLLM, llama.cpp, LM Studio: the run sent api_key "not-needed", the title request none,
    and litellm refused it before it left (no title, ever, on the README's local recipe)."""
    monkeypatch.delenv("JUPYTER_AGENT_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    scripted_server.queue(Reply(text="hello"))
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    await runtime.settle_titles()
    assert runtime.store.get_session(sid).title == "Scripted session title"
    (title,) = scripted_server.completions
    assert {k.lower(): v for k, v in title["headers"].items()}["authorization"] == "Bearer not-needed"
