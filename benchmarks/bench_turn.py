"""One turn streaming 2,000 tokens, persisted, vs a bare litellm streaming loop (same server)."""

from __future__ import annotations

import asyncio
import statistics
import tempfile
from pathlib import Path

from benchmarks.common import Reply, ScriptedServer, median_time

TOKENS = 2_000
REPEAT = 7


def _reply() -> Reply:
    return Reply(text="".join(f"tok{i % 10} " for i in range(TOKENS)), chunk_size=5)


def run() -> dict[str, float]:
    import os

    import litellm

    os.environ["JUPYTER_AGENT_API_KEY"] = "sk-bench"

    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.default = _reply()
    server.title_reply = Reply(text="t")
    folder = Path(tempfile.mkdtemp())
    config = load_config(folder, {"model": server.model, "api_base": server.base_url}, env={})
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=folder,
        working_dir=folder,
        generate_titles=False,
    )

    async def bare() -> None:
        response = await litellm.acompletion(
            model=server.model,
            api_base=server.base_url,
            api_key="sk-bench",
            stream=True,
            stream_options={"include_usage": True},
            messages=[{"role": "user", "content": "go"}],
        )
        async for _chunk in response:
            pass

    async def ours() -> None:
        await runtime.prompt("go")

    loop = asyncio.new_event_loop()
    loop.run_until_complete(bare())  # warm-up both paths
    loop.run_until_complete(ours())
    # interleaved, so both see the same load on a shared machine
    pairs = [
        (
            median_time(lambda: loop.run_until_complete(bare()), 1),
            median_time(lambda: loop.run_until_complete(ours()), 1),
        )
        for _ in range(REPEAT)
    ]
    baseline = statistics.median(b for b, _ in pairs)
    agent = statistics.median(a for _, a in pairs)
    writes_before = runtime.store.writes
    loop.run_until_complete(ours())
    writes = runtime.store.writes - writes_before
    loop.close()
    server.stop()
    return {"baseline_s": baseline, "agent_s": agent, "ratio": agent / baseline, "part_writes": writes}


if __name__ == "__main__":
    print(run())
