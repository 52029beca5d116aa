"""Per-step request build on 1k- and 10k-message sessions (5 tool parts per answer).

A step's work should grow with what is new, not with the whole history: after warm-up
the 10k/1k ratio of the per-step build time is the figure (target ≤ 1.2).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupyter_agent.agent.loop import AgentLoop
from jupyter_agent.agent.loop_settings import LoopSettings
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.tool_runner import ToolEnv
from jupyter_agent.context.tokens import count_tokens
from jupyter_agent.core import ids
from jupyter_agent.core.agents import get_agent
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
from jupyter_agent.core.model import ModelLimits, ResolvedModel
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.tools.registry import ToolRegistry

STEPS = 200
ROUNDS = 10


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
        model=ResolvedModel(name="openai/test", limits=ModelLimits(context=10**9)),
        system=lambda a: "system prompt",
    )
    env = ToolEnv(
        registry=ToolRegistry(), allowed=None, project_root=folder, working_dir=folder, save_output=str
    )
    loop = AgentLoop(recorder, client=None, tool_env=env, settings=settings, asker=None)  # type: ignore[arg-type]
    return loop, recorder


def _stepper(messages: int) -> Callable[[], float]:
    """A session of ``messages`` messages, warmed up; each call adds a turn and times one build."""
    loop, recorder = _session(messages)
    agent = get_agent("build")
    loop.build_request(agent, 1, "openai/test")  # warm-up: converts and caches the history
    added = 0

    def step() -> float:
        nonlocal added
        _turn(recorder, recorder.session.id, messages + added)  # new content arrives
        added += 1
        start = time.perf_counter()
        loop.build_request(agent, 2, "openai/test")
        return time.perf_counter() - start

    return step


def run() -> dict[str, Any]:
    """Both sessions step in alternating rounds, so both see the same load on a shared machine."""
    small, large = _stepper(1_000), _stepper(10_000)
    small_times: list[float] = []
    large_times: list[float] = []
    ratios: list[float] = []
    for _ in range(ROUNDS):
        a = [small() for _ in range(STEPS // ROUNDS)]
        b = [large() for _ in range(STEPS // ROUNDS)]
        small_times += a
        large_times += b
        ratios.append(statistics.median(b) / statistics.median(a))
    history_tokens = count_tokens("line 1 1\n" * 20) * 5 * 5_000
    # medians resist other processes stealing the CPU for a moment
    return {
        "1k_ms": statistics.median(small_times) * 1000,
        "10k_ms": statistics.median(large_times) * 1000,
        "ratio": statistics.median(ratios),
        "new_tokens_counted_per_step": count_tokens("line 1 1\n" * 20) * 5,
        "history_tokens_10k": history_tokens,
    }


if __name__ == "__main__":
    print(run())
