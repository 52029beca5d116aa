"""The title request (SPEC "Compaction": every request carries ``max_tokens = max_output(model)``)."""

from __future__ import annotations

from typing import Any

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
