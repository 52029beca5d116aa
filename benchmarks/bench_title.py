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
from pathlib import Path

from benchmarks.common import Reply, ScriptedServer, median_time

ANSWER = 16_000
REPEAT = 15


def run() -> dict[str, float]:
    os.environ["JUPYTER_AGENT_API_KEY"] = "sk-bench"

    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.default = Reply(text="x" * (ANSWER - 1) + ".", chunk_size=40)
    server.title_reply = Reply(text="A title")
    folder = Path(tempfile.mkdtemp())
    config = load_config(folder, {"model": server.model, "api_base": server.base_url}, env={})
    runtime = build_runtime(
        config=config, store=SqliteStore.for_directory(folder), project_root=folder, working_dir=folder
    )
    loop = asyncio.new_event_loop()
    continued = loop.run_until_complete(runtime.prompt("go"))  # warm-up; titled once

    async def new() -> None:
        await runtime.prompt("go")

    async def again() -> None:
        await runtime.prompt("go", session_id=continued)

    loop.run_until_complete(runtime.settle_titles())
    pairs = []
    for _ in range(REPEAT):  # interleaved, so both see the same load on a shared machine
        first = median_time(lambda: loop.run_until_complete(new()), 1)
        loop.run_until_complete(runtime.settle_titles())  # the title finishes outside the timing
        pairs.append((first, median_time(lambda: loop.run_until_complete(again()), 1)))
    new_s = statistics.median(n for n, _ in pairs)
    continued_s = statistics.median(c for _, c in pairs)
    titled = sum(1 for s in runtime.list_sessions() if s.title == "A title")
    loop.close()
    server.stop()
    return {"new_s": new_s, "continued_s": continued_s, "ratio": new_s / continued_s, "titled": titled}


if __name__ == "__main__":
    print(run())
