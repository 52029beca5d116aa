"""A scripted 200-turn data-analysis session: tokens sent with and without prune and compaction.

Each turn reads a ~3 KB data file and answers. Tokens are estimated from the requests
actually sent (4 characters per token), so the figures are what a provider would bill.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer

TURNS = 200


def _session(prune: bool, context: int) -> dict[str, Any]:
    from scripted_server import ToolCall

    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.realistic_usage = True
    folder = Path(tempfile.mkdtemp())
    for i in range(TURNS):
        rows = "\n".join(f"{i},{j},{(i * 31 + j * 7) % 1000},region-{j % 4}" for j in range(120))
        (folder / f"batch{i}.csv").write_text("turn,row,value,region\n" + rows)
    summary = "## Goal\nAnalyse the batches\n## Progress\n### Done\n- read batches\n## Next Steps\n- continue"
    queue: list[Reply] = []
    for i in range(TURNS):
        queue.append(Reply(tool_calls=[ToolCall("read", json.dumps({"filePath": f"batch{i}.csv"}))]))
        queue.append(Reply(text=f"Batch {i}: mean value is {i % 97}."))
    server.queue(*queue)
    server.title_reply = Reply(text="t")
    os.environ["JUPYTER_AGENT_API_KEY"] = "sk-bench"
    config = load_config(
        folder,
        {
            "model": server.model,
            "api_base": server.base_url,
            "compaction": {"prune": prune},
            "models": {server.model: {"limit": {"context": context, "output": 4096}}},
        },
        env={},
    )
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=folder,
        working_dir=folder,
        generate_titles=False,
    )

    # compaction requests are answered with a summary, everything else from the queue
    original_next = server._next

    def next_reply() -> Any:
        body = server.requests[-1]["body"] if server.requests else {}
        last = body.get("messages", [{}])[-1].get("content", "")
        if isinstance(last, str) and "anchored summary" in last:
            return Reply(text=summary)
        return original_next()

    server._next = next_reply  # type: ignore[method-assign]

    async def run_all() -> str:
        sid = runtime.new_session().id
        for i in range(TURNS):
            await runtime.prompt(f"Analyse batch {i}", session_id=sid)
        return sid

    asyncio.run(run_all())
    sent = [len(json.dumps(r["body"]["messages"])) // 4 for r in server.requests]
    compactions = sum(
        1
        for r in server.requests
        if isinstance(r["body"]["messages"][-1].get("content"), str)
        and "anchored summary" in r["body"]["messages"][-1]["content"]
    )
    server.stop()
    runtime.store.close()
    return {
        "calls": len(sent),
        "tokens_sent": sum(sent),
        "last_request": sent[-1],
        "compactions": compactions,
    }


def run() -> dict[str, Any]:
    huge = 10_000_000
    baseline = _session(prune=False, context=huge)
    pruned = _session(prune=True, context=huge)
    compacted = _session(prune=True, context=40_000)
    return {"baseline": baseline, "prune": pruned, "prune+compaction": compacted}


if __name__ == "__main__":
    print(json.dumps(run(), indent=1))
