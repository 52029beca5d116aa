"""In a real kernel: ``%agent`` turn overhead vs bare litellm, and widget bytes vs a plain widget."""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import Reply, ScriptedServer, kernel_env

TOKENS = 2_000
REPEAT = 7
BARE = """
import asyncio, time, litellm
async def _bare():
    r = await litellm.acompletion(model={model!r}, api_base={base!r}, api_key="sk-bench", stream=True,
                                  stream_options={{"include_usage": True}},
                                  messages=[{{"role": "user", "content": "go"}}])
    async for _c in r:
        pass
_t = time.perf_counter(); await _bare(); print(time.perf_counter() - _t)
"""
OURS = (
    "import time\n_t = time.perf_counter()\nget_ipython().run_line_magic('agent', '--wait go')\n"
    "print(time.perf_counter() - _t)"
)
PLAIN = """
import ipywidgets, time
_w = ipywidgets.Textarea()
display(_w)
_text = ""
for _i in range(0, len(_answer), 50):
    _text += _answer[_i:_i + 50]
    _w.value = _text
"""


def _comm_bytes(msgs: list[dict[str, Any]]) -> int:
    return sum(len(json.dumps(m["content"].get("data", {}))) for m in msgs if m["msg_type"] == "comm_msg")


def run() -> dict[str, float]:
    from kernel_harness import Kernel

    server = ScriptedServer().start()
    server.default = Reply(text="".join(f"tok{i % 10} " for i in range(TOKENS)), chunk_size=5)
    folder = Path(tempfile.mkdtemp())
    env = kernel_env(server, folder)  # a front end is attached: live widgets
    kernel = Kernel(folder, env)
    try:
        kernel.execute("%load_ext jupyter_agent")
        bare_code = BARE.format(model=server.model, base=server.base_url)
        kernel.execute(bare_code)
        kernel.execute(OURS)  # warm-up both
        bare, ours = [], []
        for _ in range(REPEAT):  # interleaved, so both see the same load on a shared machine
            bare.append(float(kernel.execute(bare_code).stdout.split()[-1]))
            ours.append(float(kernel.execute(OURS).stdout.split()[-1]))
        # UI traffic for a 100 KB answer: ours (deltas) vs a widget whose value is re-set per chunk
        answer = "".join(f"word{i} " for i in range(15_000))[:100_000]
        server.default = Reply(text=answer, chunk_size=50)
        before = len(kernel.iopub)
        kernel.execute("get_ipython().run_line_magic('agent', '--wait write')")
        ours_bytes = _comm_bytes(kernel.iopub[before:])
        kernel.execute(f"_answer = {answer!r}")
        before = len(kernel.iopub)
        kernel.execute(PLAIN)
        plain_bytes = _comm_bytes(kernel.iopub[before:])
    finally:
        kernel.shutdown()
        server.stop()
    return {
        "bare_s": statistics.median(bare),
        "agent_s": statistics.median(ours),
        "ratio": statistics.median(ours) / statistics.median(bare),
        "ui_bytes_per_text_byte": ours_bytes / len(answer),
        "plain_bytes_per_text_byte": plain_bytes / len(answer),
    }


if __name__ == "__main__":
    print(run())
