"""Reopening a 10k-part session (resume after a kernel restart) vs reading its rows raw."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from benchmarks.bench_context import _session
from jupyter_agent.agent.agents import get_agent
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.core.bus import Bus
from jupyter_agent.storage.sqlite_store import SqliteStore


def run() -> dict[str, float]:
    _loop, recorder = _session(4_000)  # 2,000 turns: 2,000 text + 10,000 tool parts
    path = recorder.store.path
    sid = recorder.session.id
    recorder.store.close()
    start = time.perf_counter()
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT data FROM part WHERE session_id=? ORDER BY id", (sid,)).fetchall()
    rows += conn.execute("SELECT data FROM message WHERE session_id=? ORDER BY id", (sid,)).fetchall()
    conn.close()
    raw = time.perf_counter() - start
    start = time.perf_counter()
    store = SqliteStore(Path(path))
    reopened = Recorder(store, Bus(), store.get_session(sid))
    builder = RequestBuilder(reopened, "openai/test", vision=False, media_in_tools=False)
    request = builder.build(get_agent("build"), "system", None)
    ours = time.perf_counter() - start
    store.close()
    return {
        "parts": len(rows),
        "raw_s": raw,
        "reopen_s": ours,
        "ratio": ours / raw,
        "request_messages": len(request),
    }


if __name__ == "__main__":
    print(run())
