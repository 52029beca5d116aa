"""A new session's first prompt vs a continued session's: the title must not cost the run.

Both through litellm to the scripted server (no delay), a 16,000-character answer each: the
new session's title is asked for beside the answer and never waited for, so the run (and
its lease) ends when the answer does. Before, it ended one title round-trip later (1.53×).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.common import Reply, ScriptedServer

ANSWER = 16_000
REPEAT = 11
SLOW_TITLE_S = 0.5
"""A title that takes longer than the answer (a busy small model): it must not delay the run."""


def run() -> dict[str, float]:
    quick = _measure(0.0)
    slow = _measure(SLOW_TITLE_S)
    return {**quick, "slow_title_ratio": slow["ratio"]}


def _measure(title_delay: float) -> dict[str, float]:
    os.environ["JUPYTER_AGENT_API_KEY"] = "sk-bench"

    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.default = Reply(text="x" * (ANSWER - 1) + ".", chunk_size=40)
    server.title_reply = Reply(text="A title", delay_per_chunk=title_delay)
    folder = Path(tempfile.mkdtemp())
    config = load_config(folder, {"model": server.model, "api_base": server.base_url}, env={})
    runtime = build_runtime(
        config=config, store=SqliteStore.for_directory(folder), project_root=folder, working_dir=folder
    )
    loop = asyncio.new_event_loop()
    # each continued prompt goes to a session with one exchange (the previous round's new one):
    # a growing history would make the continued prompts slower round after round
    previous = loop.run_until_complete(runtime.prompt("go"))  # warm-up; titled once
    loop.run_until_complete(runtime.settle_titles())

    def timed(session_id: str | None) -> tuple[float, float, str]:
        """Wall time of the run alone, CPU time with the title it started (if any), the session."""
        wall, cpu = time.perf_counter(), time.process_time()
        sid = loop.run_until_complete(runtime.prompt("go", session_id=session_id))
        wall = time.perf_counter() - wall
        loop.run_until_complete(runtime.settle_titles())
        return wall, time.process_time() - cpu, sid

    rounds = []
    for _ in range(REPEAT):  # interleaved, so both see the same load on a shared machine
        new_wall, new_cpu, sid = timed(None)
        again_wall, again_cpu, _ = timed(previous)
        previous = sid
        rounds.append((new_wall, again_wall, new_cpu, again_cpu))
    new_s = statistics.median(r[0] for r in rounds)
    continued_s = statistics.median(r[1] for r in rounds)
    cpu_ratio = statistics.median(r[2] for r in rounds) / statistics.median(r[3] for r in rounds)
    titled = sum(1 for s in runtime.list_sessions() if s.title == "A title")
    loop.close()
    server.stop()
    return {
        "new_s": new_s,
        "continued_s": continued_s,
        "ratio": new_s / continued_s,
        "cpu_ratio": cpu_ratio,
        "titled": titled,
    }


if __name__ == "__main__":
    print(run())
