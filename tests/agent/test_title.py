"""The title request (SPEC "Compaction": every request carries ``max_tokens = max_output(model)``)."""

from __future__ import annotations

from typing import Any

from scripted_server import Reply


async def test_the_title_request_may_use_the_model_output_limit(
    make_runtime: Any, scripted_model: Any
) -> None:
    """A cap of a few tokens leaves a reasoning model nothing to answer with (OpenCode 1.18
    sends the model's output limit, as for every request)."""
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="Monthly sales")
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    assert runtime.store.get_session(sid).title == "Monthly sales"
    step, title = scripted_model.requests[0]["body"], scripted_model.completions[0]["body"]
    assert title["max_tokens"] == step["max_tokens"] > 1_000


async def test_a_small_model_uses_its_own_configured_limit(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="Monthly sales")
    runtime = make_runtime(small_model="openai/small", models={"openai/small": {"limit": {"output": 1234}}})
    await runtime.prompt("analyse sales by month")
    assert scripted_model.completions[0]["body"]["max_tokens"] == 1234


async def test_reasoning_before_the_title_is_not_the_title(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(
        text="<think>\nThe user wants sales.\n</think>\n\n  Monthly sales\nmore"
    )
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    assert runtime.store.get_session(sid).title == "Monthly sales"


async def test_a_reply_cut_off_while_thinking_names_nothing(make_runtime: Any, scripted_model: Any) -> None:
    scripted_model.queue(Reply(text="hello"))
    scripted_model.title_reply = Reply(text="<think>\nThe user wants a title about sales, so")
    runtime = make_runtime()
    sid = await runtime.prompt("analyse sales by month")
    assert runtime.store.get_session(sid).title.startswith("New session - ")
