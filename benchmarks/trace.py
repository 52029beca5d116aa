"""``python -m benchmarks.trace``: a long session turn by turn, as docs/context-management.md shows it.

A scripted data session against the same local scripted server as the benchmarks: each
turn the model reads an 800-row CSV (~21 KB as ``read`` returns it) and writes a ~7 KB
report. The model has a 64,000-token window (4,096 output). The same script runs twice:
with the defaults (prune and automatic compaction) and with both off. Token counts are
what the scripted server reports (request characters / 4), as a provider would report them.
Prints markdown: the per-turn table, then what the compaction sent and what came after.
"""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer

TURNS = 16
CONTEXT = 64_000
OUTPUT = 4_096
ANCHOR = "anchored summary"
SUMMARY = (
    "## Goal\nReport on every sales batch.\n## Constraints & Preferences\n(none)\n"
    "## Progress\n### Done\n- batches 0-{last} read and reported\n### In Progress\n(none)\n"
    "### Blocked\n(none)\n## Key Decisions\n- mean and spread per region\n"
    "## Next Steps\n- continue with the next batch\n## Critical Context\n(none)\n"
    "## Relevant Files\n- batch*.csv"
)


@dataclass
class Turn:
    gauge: str
    """What the widget shows after the turn: ``"45,678 tokens · 71% used"``."""
    context_tokens: int
    sent: int
    """Tokens of every request of the turn, summed (a compaction adds its own request)."""
    pruned_parts: int = 0
    pruned_tokens: int = 0
    compacted: bool = False


@dataclass
class Trace:
    turns: list[Turn] = field(default_factory=list)
    anchor: str = ""
    summary: str = ""
    after: list[str] = field(default_factory=list)
    """The first request after the compaction, one line per message."""
    compaction_turn: int = 0
    compaction_sent: int = 0
    """Tokens of the compaction request (tool outputs capped at 2,000 characters)."""


def _report(i: int) -> str:
    lines = [f"Batch {i}: {i * 7 % 50 + 100} rows, mean value {i % 97}.", ""]
    lines += [f"- region-{r}: mean {(i * 13 + r * 29) % 1000}, spread {(i + r) % 40}" for r in range(220)]
    return "\n".join(lines)


def _run(managed: bool) -> Trace:
    from scripted_server import ToolCall, Usage

    from jupyter_agent.agent.runtime import Runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.context.overflow import gauge
    from jupyter_agent.context.tokens import TokenCounter
    from jupyter_agent.core.messages import AssistantMessage, ToolPart
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.realistic_usage = True
    folder = Path(tempfile.mkdtemp())
    for i in range(TURNS):
        rows = "\n".join(f"{i},{j},{(i * 31 + j * 7) % 1000},region-{j % 4}" for j in range(800))
        (folder / f"batch{i}.csv").write_text("turn,row,value,region\n" + rows)
    trace = Trace()
    compactions = 0

    def next_reply() -> Any:
        nonlocal compactions
        last = server.requests[-1]["body"]["messages"][-1].get("content", "")
        if isinstance(last, str) and ANCHOR in last:  # the compaction agent's request
            compactions += 1
            trace.anchor = last.split("\n")[0]
            return Reply(text=SUMMARY.format(last=len(trace.turns)), usage=Usage(completion_tokens=90))
        if isinstance(last, str) and last.startswith("Continue if you have next steps"):
            return Reply(text="Batch reported; waiting for the next one.", usage=Usage(completion_tokens=12))
        return queue.pop(0)

    queue: list[Reply] = []
    for i in range(TURNS):
        call = ToolCall("read", json.dumps({"filePath": f"batch{i}.csv"}), id=f"call_{i}")
        queue.append(Reply(tool_calls=[call], usage=Usage(completion_tokens=20)))
        report = _report(i)
        queue.append(Reply(text=report, usage=Usage(completion_tokens=len(report) // 4)))
    server._next = next_reply  # type: ignore[method-assign]
    os.environ["JUPYTER_AGENT_API_KEY"] = "sk-trace"
    config = load_config(
        folder,
        {
            "model": server.model,
            "api_base": server.base_url,
            "compaction": {"prune": managed, "auto": managed},
            "models": {server.model: {"limit": {"context": CONTEXT, "output": OUTPUT}}},
        },
        env={},
        global_dir=folder / "no-global",
    )
    runtime = Runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=folder,
        working_dir=folder,
        generate_titles=False,
    )
    counter = TokenCounter()

    def cleared(sid: str) -> dict[str, int]:
        return {
            p.id: counter.count(p.state.output, p.id)
            for m in runtime.store.messages(sid)
            for p in m.parts
            if isinstance(p, ToolPart) and p.state.status == "completed" and p.state.time.compacted
        }

    async def run_all() -> None:
        sid = runtime.new_session().id
        for i in range(TURNS):
            before_requests, before_compactions = len(server.requests), compactions
            before_cleared = cleared(sid)
            await runtime.prompt(f"Analyse batch {i}", session_id=sid)
            new = {k: v for k, v in cleared(sid).items() if k not in before_cleared}
            sent = sum(len(json.dumps(r["body"]["messages"])) // 4 for r in server.requests[before_requests:])
            history = runtime.store.messages(sid)
            shown = gauge(history, CONTEXT)
            turn = Turn(shown.text, shown.tokens, sent, len(new), sum(new.values()))
            turn.compacted = compactions > before_compactions
            if turn.compacted and not trace.summary:
                trace.compaction_turn = i + 1
                summary = next(m for m in history if isinstance(m.info, AssistantMessage) and m.info.summary)
                trace.summary = "".join(getattr(p, "text", "") for p in summary.parts)
                bodies = [r["body"]["messages"] for r in server.requests[before_requests:]]
                at = next(n for n, b in enumerate(bodies) if ANCHOR in str(b[-1].get("content")))
                trace.after = [_describe(m) for m in bodies[at + 1]]
                trace.compaction_sent = len(json.dumps(bodies[at])) // 4
            trace.turns.append(turn)

    asyncio.run(run_all())
    server.stop()
    runtime.store.close()
    return trace


def _describe(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = " ".join(c.get("text", "") for c in content if isinstance(c, dict))
    if message.get("tool_calls"):
        content = "call " + ", ".join(c["function"]["name"] for c in message["tool_calls"])
    first = content.strip().split("\n")[0]
    short = first if len(first) <= 60 else first[:57] + "..."
    return f"{message['role']}: {short} ({len(content):,} chars)"


def main() -> None:
    managed, unmanaged = _run(True), _run(False)
    print("| turn | gauge after the turn | prune | compaction | tokens sent | without prune and compaction |")
    print("|---|---|---|---|---|---|")
    for n, (a, b) in enumerate(zip(managed.turns, unmanaged.turns, strict=True), start=1):
        prune = f"cleared {a.pruned_parts} outputs, {a.pruned_tokens:,} tokens" if a.pruned_parts else ""
        over = " (over the window)" if b.context_tokens > CONTEXT else ""
        print(
            f"| {n} | {a.gauge} | {prune} | {'auto (window full)' if a.compacted else ''} | "
            f"{a.sent:,} | {b.sent:,}{over} |"
        )
    total_a = sum(t.sent for t in managed.turns)
    total_b = sum(t.sent for t in unmanaged.turns)
    print(f"| total | | | | {total_a:,} | {total_b:,} |")
    print()
    print(
        f"Compaction request (turn {managed.compaction_turn}, {managed.compaction_sent:,} tokens), "
        "its last user message begins:"
    )
    print(f"\n    {managed.anchor}\n")
    print("The summary it stored:\n")
    print("\n".join("    " + line for line in managed.summary.split("\n")))
    print("\nThe next request, message by message:\n")
    print("\n".join("    " + line for line in managed.after))


if __name__ == "__main__":
    main()
