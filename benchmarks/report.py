"""docs/performance.md from the benchmarks' results (``python -m benchmarks``)."""

from __future__ import annotations

from typing import Any

from benchmarks.report_checkpoint import checkpoints
from benchmarks.report_contained import contained
from benchmarks.report_inline import inline
from benchmarks.report_repro import repro
from benchmarks.report_round3 import round3


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def _kb(n: float) -> str:
    return f"{n / 1000:.1f} KB"


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


SLOW_TITLE_MS = 500
"""``bench_title.SLOW_TITLE_S``, as the report says it."""


def _title_row(title: dict[str, Any] | None) -> list[str]:
    """A new session's first prompt (its title asked for beside the answer) vs a continued one's."""
    if not title:
        return []
    cpu = f" (CPU with the title: {title['cpu_ratio']:.2f}×)" if "cpu_ratio" in title else ""
    slow = (
        f"; with a title that takes {SLOW_TITLE_MS} ms: {title['slow_title_ratio']:.2f}×"
        if "slow_title_ratio" in title
        else ""
    )
    return [
        f"| new session's first prompt (title beside the answer, never waited for) vs a continued "
        f"session's, 16,000-char answer | {_ms(title['new_s'])} | {_ms(title['continued_s'])} "
        f"| {title['ratio']:.2f}×{cpu}{slow} | ≤ 1.05× |"
    ]


def render(r: dict[str, Any], machine: str) -> str:
    turn, kernel, context, load = r["turn"], r["kernel"], r["context"], r["load"]
    cold, reopen, session, memory = r["cold"], r["reopen"], r["session"], r["memory"]
    idle, loaded = r["stream"]["idle"], r["stream"]["loaded"]
    base, pruned, compacted = session["baseline"], session["prune"], session["prune+compaction"]
    slope = memory["growth_mb"] / max(memory["turns"] - 100, 1) * 100  # MB per 100 turns after turn 100
    dates = sorted({v["date"] for v in r.values()})
    lines = [
        "# Performance",
        "",
        f"Measured by `python -m benchmarks` ({machine}; runs of {', '.join(dates)}). Each figure is "
        "compared with a baseline measured in the same run, so machines of different speed compare. "
        "`python -m benchmarks stream memory` re-measures only the named benchmarks.",
        "",
        "The machine these figures come from is shared: some benchmarks ran while it was heavily "
        "loaded (load average up to 16 on 2 cores), others while it was idle, so absolute times can "
        "be several times slower than on an idle laptop and move by ±30 % between runs. Read the "
        "ratios and differences, which are measured side by side (variants interleaved, medians), "
        "not the absolute times.",
        "",
        "## First token and answer complete (`bench_stream`)",
        "",
        f"A real kernel; the scripted endpoint streams {8_000:,} characters as 1,000 chunks 2 ms apart. "
        "First token: from the start of the cell to the first text leaving the kernel for the front "
        "end (ours: the iopub message's own timestamp, after coalescing) or reaching the caller "
        "(litellm, raw SSE). Request: when the request reached the server. `%agent --wait` with its "
        "live widget, persisted, transcript written. Medians; idle, then with a CPU-bound process "
        "beside the kernel.",
        "",
        "| | first token | request arrives | answer complete | kernel CPU |",
        "|---|---|---|---|---|",
    ]
    for case, s in (("idle", idle), ("loaded", loaded)):
        for name, label in (("raw", "raw SSE read (stdlib floor)"), ("bare", "bare litellm stream"),
                            ("ours", "`%agent --wait`")):  # fmt: skip
            lines.append(
                f"| {label}, {case} | {_ms(s[name + '_first'])} | {_ms(s[name + '_request'])} "
                f"| {s[name + '_done']:.2f} s | {_ms(s[name + '_cpu'])} |"
            )
    lines += round3(r, _met)
    lines += repro(r, _met)
    lines += checkpoints(r, _met)
    lines += inline(r, _met)
    lines += contained(r, _met)
    lines += [
        "",
        "## Goals of performance round 2",
        "",
        "| goal | ours | baseline | figure | target | |",
        "|---|---|---|---|---|---|",
        f"| warm first prompt: first `%agent` {cold['delay_s']:.0f} s after `%load_ext` vs a warm one "
        f"| {_ms(cold['first_after_delay_s'])} | {_ms(cold['warm_s'])} "
        f"| +{(cold['first_after_delay_s'] - cold['warm_s']) * 1000:.0f} ms | ≤ +300 ms "
        f"| {_met(cold['first_after_delay_s'] - cold['warm_s'] <= 0.3)} |",
        f"| `%load_ext jupyter_agent` (fresh interpreter) | {load['load_ext_ms']:.0f} ms | | | ≤ 150 ms "
        f"| {_met(load['load_ext_ms'] <= 150)} |",
    ]
    for case, s in (("idle", idle), ("loaded", loaded)):
        lines.append(
            f"| first token vs bare litellm, {case} | {_ms(s['ours_first'])} | {_ms(s['bare_first'])} "
            f"| {s['first_delta_ms']:+.0f} ms | ≤ +30 ms | {_met(s['first_delta_ms'] <= 30)} |"
        )
    for case, s in (("idle", idle), ("loaded", loaded)):
        lines.append(
            f"| answer complete vs bare litellm, {case} | {s['ours_done']:.2f} s | {s['bare_done']:.2f} s "
            f"| {s['done_ratio_bare']:.2f}× | ≤ 1.05× | {_met(s['done_ratio_bare'] <= 1.05)} |"
        )
    lines += [
        f"| answer complete vs the raw-SSE floor, idle | {idle['ours_done']:.2f} s "
        f"| {idle['raw_done']:.2f} s "
        f"| {idle['done_ratio_raw']:.2f}× | ≤ 1.10× | {_met(idle['done_ratio_raw'] <= 1.10)} |",
        f"| reopen a {reopen['parts']:,}-row session and build its first request | {_ms(reopen['reopen_s'])} "
        f"| {_ms(reopen['raw_s'])} (every row read raw) | {reopen['ratio']:.2f}× | ≤ 150 ms "
        f"| {_met(reopen['reopen_s'] <= 0.15)} |",
        f"| … validating every row first, as before lazy loading "
        f"| {_ms(reopen['full_s'])} | {_ms(reopen['reopen_s'])} (lazy) | "
        f"{reopen['full_s'] / reopen['reopen_s']:.0f}× slower | | (baseline) |",
        f"| open the same session in the side panel (newest page) | {_ms(reopen['panel_s'])} "
        f"| {_ms(reopen['panel_whole_s'])} (the whole session, before paging) "
        f"| {reopen['panel_whole_s'] / reopen['panel_s']:.0f}× faster | | |",
        f"| kernel RSS growth after turn 100 of a {memory['turns']:,}-turn session with compaction "
        f"| +{memory['growth_mb']:.1f} MB | {memory['rss_at_100_mb']:.0f} MB at turn 100 | | < 50 MB "
        f"| {_met(memory['growth_mb'] < 50)} |",
        f"| widget traffic per cell, {8_000:,}-character answer: widget code | "
        f"{_kb(idle['ours_bytes_code'])} | {_kb(idle['ours_bytes_live'])} live content | | once per page "
        "| met |",
        "",
        "Notes on the goals:",
        "- **Warm first prompt and `%load_ext`.** Wall-clock figures with no side-by-side baseline "
        "to cancel the machine's load. The warm-up (importing litellm and tiktoken, opening the "
        "store, reading the model map) runs in a thread after `%load_ext`. Measured idle, both are "
        f"within target ({load['load_ext_ms']:.0f} ms to load; the first prompt "
        f"{cold['delay_s']:.0f} s later as fast as a warm one, within the noise). Under heavy load "
        "(load average 12–16 on 2 cores) an earlier run measured the warm-up alone at more than "
        "5 s, so a prompt sent 5 s after `%load_ext` still waited for it (+11.5 s), and "
        "`%load_ext` at 165 ms.",
        "- **First token.** Profiled from the cell to the request: before this round a `--wait` cell "
        "ran on a fresh event loop, so litellm built a new HTTP client and connection for every prompt "
        "(~50 ms between our call and the request leaving); the private loop is now kept. The first "
        "delta of a part is sent at once instead of waiting for the 50 ms coalescing window, and the "
        "gauge, the transcript and the recording of the prompt no longer read the whole session. "
        f"What remains before the request is ~{(idle['ours_request'] - idle['bare_request']) * 1000:.0f} ms "
        "(idle) over bare litellm: creating and displaying the widget, the prompt's store writes, the "
        "system prompt and the request build. Under load this CPU work stretches: an earlier run of the "
        "same changes measured +102 ms with the CPU-bound process beside it (+0 ms idle).",
        "- **Answer complete.** Single wall-clock runs move by more than the 5 % target on the "
        "measuring machine (earlier runs during this round measured 0.79–1.23× idle; the raw "
        "floor was once slower than litellm): all three variants wait for the same 1,000 "
        "server-side sleeps, which the load stretches unevenly. The kernel's CPU time is "
        "steadier and says what our work costs: "
        f"{_ms(idle['ours_cpu'])} for our answer against {_ms(idle['bare_cpu'])} for bare litellm "
        f"({idle['ours_cpu'] / idle['bare_cpu']:.2f}×) and {_ms(idle['raw_cpu'])} for the raw read "
        "(idle): nearly all of it is litellm's own per-chunk processing, which the raw floor does not "
        "do. Per chunk we add the part update, the bus, the store's coalesced write and the widget's "
        "delta; at the end the transcript (Markdown to HTML).",
        f"- **Reopen.** Validating every stored row into pydantic models is the cost of reopening "
        f"({_ms(reopen['full_s'])} for all {reopen['parts']:,} rows). A reopened session now loads only "
        f"its window: the last completed compaction's verbatim tail and what follows, extended back as "
        f"far as prune's walk goes ({reopen['rows_validated']:,} rows validated here; the request holds "
        f"{reopen['request_messages']} messages). What a dead process left running and the last "
        "compaction are found through indexes (schema version 3), not by reading the session. Older "
        "messages load on demand: export, fork and revert read the whole session when asked, a budget "
        "reads the older messages' costs once (without their parts), and the side panel opens on the "
        "newest 50 messages and reads the pages before when asked (Show earlier messages).",
        "- **Memory.** RSS sampled every 100 turns: "
        + ", ".join(f"{t}: {b / 1e6:.0f} MB" for t, b, _s in memory["samples"])
        + f" ({memory['compactions']} compactions, {memory['requests']:,} model requests, "
        f"{memory['seconds']:.0f} s). Widgets are closed when their run ends (the cell keeps a static "
        "transcript), bus subscriptions end with the run, and the view backlog is bounded."
        + (
            f" This run stopped at {memory['turns']} turns (`BENCH_MEMORY_TURNS`) to stay short on the "
            f"shared machine; at its slope ({slope:.1f} MB per 100 turns) 1,000 turns would add "
            f"~{slope * 9:.0f} MB."
            if memory["turns"] < 1_000
            else ""
        ),
        f"- **Widget traffic.** The widget's module (~430 KB with its Markdown renderer) is sent with the "
        "kernel's first widget only; every later cell's widget carries a 1.5 KB loader that reuses the "
        "module already on the page (or asks the kernel for it once, after a page reload or in another "
        f"front end). Per cell: {_kb(idle['ours_bytes_code'])} of code and CSS, "
        f"{_kb(idle['ours_bytes_live'])} of live state and deltas, {_kb(idle['ours_bytes_transcript'])} "
        "for the static transcript that replaces the widget (HTML, Markdown and text).",
        "",
        "## Other figures",
        "",
        "| benchmark | ours | baseline | ratio | target |",
        "|---|---|---|---|---|",
        f"| `%agent` turn in a real kernel: 2,000 streamed tokens, persisted and sent to the widget, vs "
        f"bare litellm streaming in the same kernel | {_ms(kernel['agent_s'])} | {_ms(kernel['bare_s'])} "
        f"| {kernel['ratio']:.2f}× | ≤ 1.05× |",
        f"| headless turn (`Runtime.prompt`), same 2,000 tokens | {_ms(turn['agent_s'])} "
        f"| {_ms(turn['baseline_s'])} | {turn['ratio']:.2f}× | ≤ 1.05× |",
        *_title_row(r.get("title")),
        f"| per-step request build, 10k vs 1k messages (5 tool parts each) | {context['10k_ms']:.3f} ms "
        f"| {context['1k_ms']:.3f} ms | {context['ratio']:.2f}× | ≤ 1.2× |",
        f"| widget bytes per streamed text byte, 100 KB answer, vs a plain widget re-set per chunk | "
        f"{kernel['ui_bytes_per_text_byte']:.2f} | {kernel['plain_bytes_per_text_byte']:.0f} | | ≤ 1.5 |",
        f"| first `%agent` sent right after `%load_ext` (waits only for the warm-up's remaining work) "
        f"| {_ms(cold['first_at_once_s'])} | {_ms(cold['warm_s'])} | | — |",
        "",
        "## A 200-turn data-analysis session",
        "",
        "Each turn reads a ~3 KB data file and answers (tokens estimated from the requests sent).",
        "",
        "| context management | model calls | tokens sent in total | last request |",
        "|---|---|---|---|",
        f"| none | {base['calls']} | {base['tokens_sent']:,} | {base['last_request']:,} |",
        f"| prune (default) | {pruned['calls']} | {pruned['tokens_sent']:,} | {pruned['last_request']:,} |",
        f"| prune + compaction (40k window) | {compacted['calls']} (incl. {compacted['compactions']} "
        f"summaries) | {compacted['tokens_sent']:,} | {compacted['last_request']:,} |",
        "",
        "Notes:",
        f"- Streaming writes: {turn['part_writes']} part rows for a 2,000-token answer "
        "(≤ 1 write per ~200 ms per part, plus the final write).",
        "- Per-step request build: the two sessions step in alternating rounds and the ratio is the "
        "median of the rounds' ratios; the converted-message cache is keyed by each part's content, "
        "not its length.",
        f"- Tokens counted per step: {context['new_tokens_counted_per_step']:,} (the new tool outputs); "
        "counts are cached per part.",
        "- The request list is kept between steps and only the changed tail is converted again; sending "
        "it is still O(history) (the provider needs every message), building it is not.",
        "- Prune costs no model call; each compaction costs one.",
        "- The `%agent` turn in a real kernel now runs with a front end attached (a live widget, as in "
        "Jupyter); earlier rounds measured it headless, without a widget. Its 2,000 chunks arrive "
        "without delay, so it compares CPU with CPU: a profile of one turn shows litellm's own chunk "
        "processing first, then the widget's ~200 comm messages (each a zmq send that waits for the "
        "kernel's IOPub thread on a loaded machine), then the store's coalesced writes.",
        "",
    ]
    return "\n".join(lines)
