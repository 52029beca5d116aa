"""Issue 27.9: the python tool's prints and ``@var`` summaries are bounded like bash's output.

A ``print`` loop writing a gigabyte grew the kernel by a gigabyte (IPython's capture keeps
everything). Now prints stream through the same bounded output as bash: the ends stay in
memory, the rest goes to a file up to ``tool_output.max_saved_bytes``, where the code is
stopped. Measured in a real kernel by its own high-water mark (``VmHWM``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from faults_support import tool_results
from scripted_server import Reply, ToolCall

MB = 1 << 20
FLOOD = "for i in range(10_000_000):\n    print('x' * 99)\n"  # 1 GB of lines


def _high_water(kernel: Any) -> int:
    """The kernel process's peak resident memory so far, in bytes."""
    pid = kernel.execute("import os; print(os.getpid())").stdout.strip()
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def test_a_gigabyte_of_prints_does_not_grow_the_kernel(start_kernel: Any, scripted_server: Any) -> None:
    """User sees: the code stopped at 50 MB with "OutputLimitExceeded: The output passed 50 MB
    (tool_output.max_saved_bytes); the rest was not kept: the code was stopped there"; the kernel
    grew by far less than the gigabyte, and stays usable."""
    kernel = start_kernel()
    scripted_server.queue(Reply(text="warm"))
    assert kernel.execute("%agent --wait warm up").status == "ok"  # litellm and the loop loaded
    kernel.execute("big = 'y' * 3_000_000")
    before = _high_water(kernel)
    scripted_server.queue(
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": FLOOD}))]),
        Reply(tool_calls=[ToolCall("python", json.dumps({"code": "big"}))]),
        Reply(text="done"),
    )
    result = kernel.execute("%agent --wait flood @big", timeout=300)
    assert result.status == "ok", result.error
    grown = _high_water(kernel) - before
    assert grown < 200 * MB, f"the kernel grew by {grown / MB:.0f} MB"
    flood, value = tool_results(scripted_server.requests[-2]) + tool_results(scripted_server.requests[-1])[1:]
    assert flood.startswith("x" * 99 + "\n")
    assert (
        "OutputLimitExceeded: The output passed 50 MB (tool_output.max_saved_bytes); the rest was not kept: "
        "the code was stopped there"
    ) in flood
    saved = Path(flood.split("Full output saved to: ", 1)[1].split("\n", 1)[0])
    assert 50 * MB <= saved.stat().st_size < 50 * MB + 200
    assert len(flood) < 60_000
    assert value.startswith("Out: 'yyyy") and "more characters" in value and len(value) < 11_000
    prompt = scripted_server.requests[-3]["body"]["messages"][-1]["content"]
    assert "big: str" in str(prompt) and len(str(prompt)) < 20_000  # the @big summary is cut too
    assert kernel.execute("print('alive')").stdout.strip() == "alive"
