"""Per-step request build on 1k- and 10k-message sessions (5 tool parts per answer).

A step's work should grow with what is new, not with the whole history: after warm-up
the 10k/1k ratio of the per-step build time is the figure (target ≤ 1.2).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from jupyter_agent.agent.agents import get_agent
from jupyter_agent.agent.loop import AgentLoop, LoopSettings
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.tool_runner import ToolEnv
from jupyter_agent.context.tokens import count_tokens
from jupyter_agent.core import ids
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import (
    AssistantMessage,
    Session,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolTimeCompleted,
    UserMessage,
)
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.registry import ToolRegistry

STEPS = 100


def _turn(recorder: Recorder, sid: str, n: int) -> None:
    user = UserMessage(id=ids.ascending("msg"), session_id=sid)
    recorder.message(user)
    recorder.part(TextPart(id=ids.ascending("prt"), session_id=sid, message_id=user.id, text=f"question {n}"))
    answer = AssistantMessage(id=ids.ascending("msg"), session_id=sid, parent_id=user.id, finish="tool-calls")
    recorder.message(answer)
    for k in range(5):
        recorder.part(
            ToolPart(
                id=ids.ascending("prt"),
                session_id=sid,
                message_id=answer.id,
                call_id=f"c{n}_{k}",
                tool="read",
                state=ToolStateCompleted(
                    input={"filePath": f"f{k}.py"},
                    output=f"line {n} {k}\n" * 20,
                    title="r",
                    time=ToolTimeCompleted(start=1, end=2),
                ),
            )
        )


def _session(messages: int) -> tuple[AgentLoop, Recorder]:
    folder = Path(tempfile.mkdtemp())
    store = SqliteStore.for_directory(folder)
    session = store.create_session(Session(id=ids.ascending("ses")))
    recorder = Recorder(store, Bus(), session)
    for n in range(messages // 2):
        _turn(recorder, session.id, n)
    settings = LoopSettings(
        model="openai/test",
        system=lambda a: "system prompt",
        context_limit=10**9,
        input_limit=None,
        output_limit=None,
    )
    env = ToolEnv(
        registry=ToolRegistry(), allowed=None, project_root=folder, working_dir=folder, save_output=str
    )
    loop = AgentLoop(recorder, client=None, tool_env=env, settings=settings, ask=None)  # type: ignore[arg-type]
    return loop, recorder


def _per_step(messages: int) -> dict[str, Any]:
    loop, recorder = _session(messages)
    agent = get_agent("build")
    loop.build_request(agent, 1, "openai/test")  # warm-up: converts and caches the history
    times: list[float] = []
    sent = 0
    for n in range(STEPS):
        _turn(recorder, recorder.session.id, messages + n)  # new content arrives
        start = time.perf_counter()
        request = loop.build_request(agent, 2, "openai/test")
        times.append(time.perf_counter() - start)
        sent = len(request)
    # the median resists other processes stealing the CPU for a moment
    return {"messages": messages, "per_step_ms": statistics.median(times) * 1000, "request_messages": sent}


def run() -> dict[str, Any]:
    small = _per_step(1_000)
    large = _per_step(10_000)
    history_tokens = count_tokens("line 1 1\n" * 20) * 5 * 5_000
    return {
        "1k_ms": small["per_step_ms"],
        "10k_ms": large["per_step_ms"],
        "ratio": large["per_step_ms"] / small["per_step_ms"],
        "new_tokens_counted_per_step": count_tokens("line 1 1\n" * 20) * 5,
        "history_tokens_10k": history_tokens,
    }


if __name__ == "__main__":
    print(run())
