"""First token and answer complete in a real kernel: ``%agent`` vs bare litellm vs raw SSE.

The scripted endpoint streams an 8,000-character answer as 1,000 chunks 2 ms apart. In
one kernel, interleaved so that every variant sees the same load, we time from the
start of the cell:

- raw SSE: ``http.client`` reading the event stream line by line (the stdlib floor);
- bare litellm: ``litellm.acompletion(stream=True)`` iterated to the end;
- ``%agent --wait``: the first text delta *sent to the front end* (the iopub message's
  own timestamp, i.e. after our coalescing) and the cell's return (persisted, rendered,
  transcript written).

Each cell also reports the kernel's CPU time (``time.process_time``, all its threads),
which the machine's load does not stretch. The same rounds run again with a CPU-bound
process beside the kernel (``loaded``). The
scripted server records when each request arrived, which splits our first token into
"cell start → request leaves" and "request → first delta shown".
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer, kernel_env

CHARS = 8_000
CHUNKS = 1_000
DELAY_S = 0.002
ROUNDS = 5
HELPERS = """
import asyncio, http.client, json, time, urllib.parse
import litellm
_MODEL, _BASE = {model!r}, {base!r}
def _raw():
    u = urllib.parse.urlsplit(_BASE)
    t = time.perf_counter(); w = time.time(); first = None; cpu = time.process_time()
    c = http.client.HTTPConnection(u.hostname, u.port)
    body = json.dumps({{"model": "test", "stream": True, "messages": [{{"role": "user", "content": "go"}}]}})
    c.request("POST", u.path + "/chat/completions", body, {{"Content-Type": "application/json"}})
    r = c.getresponse()
    for line in r:
        if first is None and b'"content": "' in line and b'"content": ""' not in line:
            first = time.perf_counter()
        if line.startswith(b"data: [DONE]"):
            break
    c.close()
    cpu = time.process_time() - cpu
    return {{"first": first - t, "done": time.perf_counter() - t, "wall": w, "cpu": cpu}}
async def _bare():
    t = time.perf_counter(); w = time.time(); first = None; cpu = time.process_time()
    r = await litellm.acompletion(model=_MODEL, api_base=_BASE, api_key="sk-bench", stream=True,
                                  stream_options={{"include_usage": True}},
                                  messages=[{{"role": "user", "content": "go"}}])
    async for ch in r:
        if first is None and ch.choices and ch.choices[0].delta.content:
            first = time.perf_counter()
    cpu = time.process_time() - cpu
    return {{"first": first - t, "done": time.perf_counter() - t, "wall": w, "cpu": cpu}}
def _ours():
    t = time.perf_counter(); w = time.time(); cpu = time.process_time()
    get_ipython().run_line_magic("agent", "--wait go")
    return {{"done": time.perf_counter() - t, "wall": w, "cpu": time.process_time() - cpu}}
"""
CELLS = {
    "raw": "print(json.dumps(_raw()))",
    "bare": "print(json.dumps(await _bare()))",
    "ours": "print(json.dumps(_ours()))",
}


def _stamp(msg: dict[str, Any]) -> float:
    date = msg["header"]["date"]
    if isinstance(date, str):
        date = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    return float(date.timestamp())


def _first_delta(msgs: list[dict[str, Any]]) -> float | None:
    """When the answer's first text (a delta, or a part of an assistant message carrying
    text) left the kernel."""
    assistant: set[str] = set()
    for m in msgs:
        if m["msg_type"] != "comm_msg":
            continue
        data = m["content"].get("data", {}).get("content") or {}
        kind = data.get("kind")
        if kind == "message" and data["message"].get("role") == "assistant":
            assistant.add(data["message"]["id"])
        part = data.get("part") or {}
        if kind == "delta" or (kind == "part" and part.get("message_id") in assistant and part.get("text")):
            return _stamp(m)
    return None


OUTPUT_MSGS = ("comm_open", "comm_msg", "comm_close", "display_data", "update_display_data")


def widget_bytes(msgs: list[dict[str, Any]]) -> dict[str, int]:
    """Bytes of one cell's output traffic: the widget's code (its ``_esm`` and ``_css`` in the
    comm_open), the live view's state and streamed content, and the final transcript."""
    code = live = transcript = 0
    for m in msgs:
        if m["msg_type"] not in OUTPUT_MSGS:
            continue
        size = len(json.dumps(m["content"]))
        if m["msg_type"].endswith("display_data"):
            transcript += size
            continue
        state = m["content"].get("data", {}).get("state", {}) if m["msg_type"] == "comm_open" else {}
        shipped = sum(len(json.dumps(state[k])) for k in ("_esm", "_css") if isinstance(state.get(k), str))
        code += shipped
        live += size - shipped
    return {"code": code, "live": live, "transcript": transcript}


def _round(kernel: Any, server: ScriptedServer, out: dict[str, list[dict[str, float]]]) -> None:
    for name, cell in CELLS.items():
        before_iopub, before_req = len(kernel.iopub), len(server.requests)
        result = kernel.execute(cell)
        lines = [ln for ln in result.stdout.splitlines() if ln.startswith("{")]
        if not lines:
            raise RuntimeError(
                f"{name}: no result: {result.stdout[-300:]} {result.stderr[-600:]} {result.error}"
            )
        got = json.loads(lines[-1])
        arrived = server.requests[before_req]["at"] if len(server.requests) > before_req else None
        if arrived is not None:
            got["request"] = arrived - got["wall"]
        if name == "ours":
            shown = _first_delta(kernel.iopub[before_iopub:])
            got["first"] = (shown - got["wall"]) if shown is not None else float("nan")
            got.update({f"bytes_{k}": v for k, v in widget_bytes(kernel.iopub[before_iopub:]).items()})
        out[name].append(got)


def _summary(samples: dict[str, list[dict[str, float]]]) -> dict[str, float]:
    med = {
        f"{name}_{key}": statistics.median(s[key] for s in rows if key in s)
        for name, rows in samples.items()
        for key in ("first", "done", "request", "cpu", "bytes_code", "bytes_live", "bytes_transcript")
        if any(key in s for s in rows)
    }
    med["first_delta_ms"] = (med["ours_first"] - med["bare_first"]) * 1000
    med["done_ratio_bare"] = med["ours_done"] / med["bare_done"]
    med["done_ratio_raw"] = med["ours_done"] / med["raw_done"]
    return med


def _burner() -> subprocess.Popen[bytes]:
    """One CPU-bound process beside the kernel (the 'loaded' case)."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def run(rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    from kernel_harness import Kernel

    server = ScriptedServer().start()
    server.default = Reply(
        text=("abcdefg " * CHARS)[:CHARS], chunk_size=CHARS // CHUNKS, delay_per_chunk=DELAY_S
    )
    folder = Path(tempfile.mkdtemp())
    env = kernel_env(server, folder)  # a front end is attached: live widgets
    (folder / "jupyter-agent.json").write_text(json.dumps({"compaction": {"prune": False}}))
    kernel = Kernel(folder, env)
    results: dict[str, dict[str, float]] = {}
    try:
        kernel.execute("%load_ext jupyter_agent")
        kernel.execute(HELPERS.format(model=server.model, base=server.base_url))
        for case in ("idle", "loaded"):
            burner = _burner() if case == "loaded" else None
            try:
                _round(kernel, server, {k: [] for k in CELLS})  # warm-up
                samples: dict[str, list[dict[str, float]]] = {k: [] for k in CELLS}
                for _ in range(rounds):
                    _round(kernel, server, samples)
            finally:
                if burner is not None:
                    burner.kill()
                    burner.wait()
            results[case] = _summary(samples)
    finally:
        kernel.shutdown()
        server.stop()
    return results


if __name__ == "__main__":
    start = time.perf_counter()
    for case, figures in run(int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS).items():
        print(case, {k: round(v, 4) for k, v in figures.items()})
    print(f"({time.perf_counter() - start:.0f} s)")
