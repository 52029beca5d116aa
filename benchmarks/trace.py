"""``python -m benchmarks.trace``: a long session turn by turn, as docs/context-management.md shows it.

A scripted data session against the same local scripted server as the benchmarks: most
turns the model reads an 800-row CSV (~21 KB as ``read`` returns it) and writes a ~7 KB
report. Along the way the user pastes a large table into a prompt (the provider refuses
the request as too long: compaction, then the prompt is replayed) and runs ``%compact``
while the provider is overloaded (the summary fails; the next turn runs normally). The
model has a 64,000-token window (4,096 output); with prune and compaction on, the server
refuses any request over that window, as a provider does. The same script runs twice:
with the defaults and with prune and automatic compaction off. Token counts are what the
scripted server reports (request characters / 4), as a provider would report them.
Prints markdown: the per-turn table, then what each compaction sent and what came after.
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

CONTEXT = 64_000
OUTPUT = 4_096
ANCHOR = "anchored summary"
PASTE_ROWS = 3_200
SCRIPT = [*(f"batch {i}" for i in range(19)), "paste", "batch 19", "batch 20", "%compact", "batch 21"]
SUMMARY = (
    "## Goal\nReport on every sales batch.\n## Constraints & Preferences\n{rules}\n"
    "## Progress\n### Done\n- batches 0-{last} read and reported\n### In Progress\n(none)\n"
    "### Blocked\n(none)\n## Key Decisions\n- mean and spread per region\n"
    "## Next Steps\n- continue with the next batch\n## Critical Context\n(none)\n"
    "## Relevant Files\n- batch*.csv"
)


@dataclass
class Turn:
    action: str
    gauge: str
    """What the widget shows after the turn: ``"45,678 tokens · 71% used"``."""
    context_tokens: int
    sent: int
    """Tokens of every request of the turn, summed (a compaction adds its own requests)."""
    pruned_parts: int = 0
    pruned_tokens: int = 0
    compaction: str = ""


@dataclass
class Compaction:
    turn: int
    kind: str
    """``auto`` (window full), ``overflow`` (the provider refused a request) or ``manual``."""
    sent: int
    anchor: list[str]
    """The summary request's last user message, its first lines."""
    last: int
    """Index of its last request (attempts are retried)."""
    refused: int = 0
    """Tokens of the request the provider refused (overflow), else 0."""
    attempts: int = 1
    summary: str = ""
    error: str = ""
    after: list[str] = field(default_factory=list)
    """The next request that was answered, one line per message."""


@dataclass
class Trace:
    turns: list[Turn] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)


def _report(i: int) -> str:
    lines = [f"Batch {i}: {i * 7 % 50 + 100} rows, mean value {i % 97}.", ""]
    lines += [f"- region-{r}: mean {(i * 13 + r * 29) % 1000}, spread {(i + r) % 40}" for r in range(220)]
    return "\n".join(lines)


def _paste() -> str:
    rows = [f"{j},region-{j % 4},{(j * 37) % 1000},{(j * 11) % 97}.{j % 10}" for j in range(PASTE_ROWS)]
    return "Corrected targets from the finance sheet, use them from now on:\n" + "\n".join(rows)


def _tokens(body: dict[str, Any]) -> int:
    return len(json.dumps(body["messages"])) // 4


def _last_text(body: dict[str, Any]) -> str:
    last = body["messages"][-1].get("content", "")
    return last if isinstance(last, str) else ""


def _replies() -> list[Reply]:
    """The model's answers in order: a ``read`` and a report per batch, a note for the paste."""
    from scripted_server import ToolCall, Usage

    out: list[Reply] = []
    for action in SCRIPT:
        if action == "paste":
            out.append(
                Reply(
                    text="Noted: the corrected targets apply from now on.", usage=Usage(completion_tokens=12)
                )
            )
        elif action.startswith("batch"):
            i = int(action.split()[1])
            call = ToolCall("read", json.dumps({"filePath": f"batch{i}.csv"}), id=f"call_{i}")
            out.append(Reply(tool_calls=[call], usage=Usage(completion_tokens=20)))
            report = _report(i)
            out.append(Reply(text=report, usage=Usage(completion_tokens=len(report) // 4)))
    return out


class Model:
    """The scripted model: answers in order, summarises, refuses what overflows the window."""

    def __init__(self, server: ScriptedServer, managed: bool) -> None:
        self.server, self.managed = server, managed
        self.queue = _replies()
        self.answered: list[bool] = []
        self.compactions: list[Compaction] = []
        self.turn, self.action, self.reported = 0, "", 0

    def __call__(self) -> Any:
        from scripted_server import ErrorReply, Usage

        body = self.server.requests[-1]["body"]
        index, last = len(self.answered), _last_text(body)
        self.answered.append(True)
        if ANCHOR in last:  # the compaction agent's request
            self._note_summary(body, index)
            if self.action == "%compact":
                self.answered[-1] = False
                return ErrorReply(503, "Service overloaded", {"retry-after-ms": "100"})
            rules = "- use the corrected targets" if "Corrected targets" in json.dumps(body) else "(none)"
            self.compactions[-1].summary = SUMMARY.format(rules=rules, last=self.reported - 1)
            return Reply(text=self.compactions[-1].summary, usage=Usage(completion_tokens=90))
        if self.managed and _tokens(body) > CONTEXT:
            self.answered[-1] = False
            sent = _tokens(body)
            return ErrorReply(
                400, f"This model's maximum context length is {CONTEXT} tokens, you sent {sent}."
            )
        if last.startswith("Continue if you have next steps"):
            return Reply(text="Batch reported; waiting for the next one.", usage=Usage(completion_tokens=12))
        reply = self.queue.pop(0)
        self.reported += reply.text.startswith("Batch ")
        return reply

    def _note_summary(self, body: dict[str, Any], index: int) -> None:
        previous = self.compactions[-1] if self.compactions else None
        if previous is not None and previous.last == index - 1 and not self.answered[index - 1]:
            previous.attempts, previous.last = previous.attempts + 1, index  # a retry
            return
        refused = 0
        if index and not self.answered[index - 1]:
            refused = _tokens(self.server.requests[index - 1]["body"])
        kind = "manual" if self.action == "%compact" else "overflow" if refused else "auto"
        anchor = _last_text(body).split("\n")[:4]
        self.compactions.append(Compaction(self.turn, kind, _tokens(body), anchor, index, refused))

    def finish(self) -> None:
        """Each compaction's next answered request (a failed one's is the next turn's)."""
        for c in self.compactions:
            for body, ok in zip(self.server.requests[c.last + 1 :], self.answered[c.last + 1 :], strict=True):
                if ok and ANCHOR not in _last_text(body["body"]):
                    c.after = [_describe(m) for m in body["body"]["messages"]]
                    break


def _run(managed: bool) -> Trace:
    from jupyter_agent.agent.compose import build_runtime
    from jupyter_agent.config import load_config
    from jupyter_agent.context.overflow import gauge
    from jupyter_agent.context.tokens import TokenCounter
    from jupyter_agent.core.messages import ToolPart
    from jupyter_agent.storage.sqlite_store import SqliteStore

    server = ScriptedServer().start()
    server.realistic_usage = True
    model = Model(server, managed)
    server._next = model  # type: ignore[method-assign]
    folder = Path(tempfile.mkdtemp())
    for i in range(sum(a.startswith("batch") for a in SCRIPT)):
        rows = "\n".join(f"{i},{j},{(i * 31 + j * 7) % 1000},region-{j % 4}" for j in range(800))
        (folder / f"batch{i}.csv").write_text("turn,row,value,region\n" + rows)
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
    runtime = build_runtime(
        config=config,
        store=SqliteStore.for_directory(folder),
        project_root=folder,
        working_dir=folder,
        generate_titles=False,
    )
    errors: list[str] = []
    runtime.bus.subscribe(lambda e: errors.append(e.error.message), "session.error")
    counter = TokenCounter()
    trace = Trace()

    def cleared(sid: str) -> dict[str, int]:
        return {
            p.id: counter.count(p.state.output, p.id)
            for m in runtime.store.messages(sid)
            for p in m.parts
            if isinstance(p, ToolPart) and p.state.status == "completed" and p.state.time.compacted
        }

    async def run_all() -> None:
        sid = runtime.new_session().id
        for n, action in enumerate(SCRIPT, start=1):
            model.turn, model.action = n, action
            before_requests, before_compactions, before_cleared = (
                len(server.requests),
                len(model.compactions),
                cleared(sid),
            )
            errors.clear()
            if action == "%compact":
                await runtime.compact(sid)
            elif action == "paste":
                await runtime.prompt(_paste(), session_id=sid)
            else:
                await runtime.prompt(f"Analyse batch {action.split()[1]}", session_id=sid)
            new = {k: v for k, v in cleared(sid).items() if k not in before_cleared}
            sent = sum(_tokens(r["body"]) for r in server.requests[before_requests:])
            shown = gauge(runtime.store.messages(sid), CONTEXT)
            turn = Turn(action, shown.text, shown.tokens, sent, len(new), sum(new.values()))
            for c in model.compactions[before_compactions:]:
                c.error = "" if c.summary else (errors[-1] if errors else "failed")
                turn.compaction = c.kind if c.summary else f"{c.kind}, failed"
            trace.turns.append(turn)

    asyncio.run(run_all())
    model.finish()
    trace.compactions = model.compactions
    server.stop()
    runtime.store.close()
    return trace


def _describe(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if not isinstance(content, str):
        content = " ".join(c.get("text", "") for c in content if isinstance(c, dict))
    if message.get("tool_calls"):
        content = "call " + ", ".join(c["function"]["name"] for c in message["tool_calls"])
    lines = content.strip().split("\n")
    first = lines[0]
    if first == "<system-reminder>" and len(lines) > 2:  # after step 1 new user texts are wrapped
        first = f"[in a system-reminder] {lines[2]}"
    short = first if len(first) <= 60 else first[:57] + "..."
    return f"{message['role']}: {short} ({len(content):,} chars)"


def main() -> None:
    managed, unmanaged = _run(True), _run(False)
    print(
        "| turn | prompt | gauge after it | prune | compaction | tokens sent | without prune or compaction |"
    )
    print("|---|---|---|---|---|---|---|")
    for n, (a, b) in enumerate(zip(managed.turns, unmanaged.turns, strict=True), start=1):
        prune = f"cleared {a.pruned_parts} outputs, {a.pruned_tokens:,} tokens" if a.pruned_parts else ""
        over = " (over the window)" if b.context_tokens > CONTEXT else ""
        what = {"paste": "a pasted table", "%compact": "`%compact`"}.get(a.action, f"Analyse {a.action}")
        print(f"| {n} | {what} | {a.gauge} | {prune} | {a.compaction} | {a.sent:,} | {b.sent:,}{over} |")
    total_a = sum(t.sent for t in managed.turns)
    total_b = sum(t.sent for t in unmanaged.turns)
    print(f"| total | | | | | {total_a:,} | {total_b:,} |")
    for c in managed.compactions:
        print(f"\n### Turn {c.turn}: {c.kind} compaction\n")
        if c.refused:
            print(f"The provider refused the turn's request ({c.refused:,} tokens, over the window).\n")
        tries = f", {c.attempts} attempts" if c.attempts > 1 else ""
        print(f"Summary request ({c.sent:,} tokens{tries}), its last user message begins:\n")
        print("\n".join(("    " + line).rstrip() for line in c.anchor))
        if c.summary:
            print("\nThe summary it stored:\n")
            print("\n".join(("    " + line).rstrip() for line in c.summary.split("\n")))
        else:
            print(f"\nIt failed; `%compact` printed:\n\n    Compaction failed: {c.error}")
        print("\nThe next request, message by message:\n")
        print("\n".join(("    " + line).rstrip() for line in c.after))


if __name__ == "__main__":
    main()
