"""Reopening a 16,000-row session (resume after a kernel restart) and building its first request.

Three figures, measured side by side on the same file:

- raw: reading every row with ``sqlite3`` (no validation) — the floor;
- reopen: what a resumed ``%agent`` does: close what a dead process left open
  (``close_orphans``), load the recorder's window (the last compaction's verbatim tail and
  what follows, as far back as prune looks) and build the request;
- full: the same, but validating every row into the history first (before lazy loading);
- panel: the side panel opening the session (its newest page turned into UI messages),
  against the same for the whole session (before paging).

The session has 2,000 turns (a question, five tool results) and one compaction two turns
from the end, as a long-running notebook session has.
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_context import _session, _turn
from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.recovery import close_orphans
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.core import ids
from jupyter_agent.core.agents import get_agent
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import AssistantMessage, CompactionPart, TextPart, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.ui.history_pages import page_before
from jupyter_agent.ui.render import Renderer
from jupyter_agent.ui.widget_protocol import to_wire

REPEAT = 3


def _compact(recorder: Recorder, tail_start: str) -> None:
    """A completed compaction: the marker message, then its summary."""
    sid = recorder.session.id
    user = UserMessage(id=ids.ascending("msg"), session_id=sid)
    recorder.message(user)
    marker = CompactionPart(
        id=ids.ascending("prt"), session_id=sid, message_id=user.id, auto=True, tail_start_id=tail_start
    )
    recorder.part(marker)
    summary = AssistantMessage(
        id=ids.ascending("msg"), session_id=sid, parent_id=user.id, summary=True, finish="stop"
    )
    recorder.message(summary)
    recorder.part(TextPart(id=ids.ascending("prt"), session_id=sid, message_id=summary.id, text="## Goal\n…"))


def _build(recorder: Recorder) -> list[dict[str, Any]]:
    builder = RequestBuilder(recorder, "openai/test", vision=False, media_in_tools=False)
    return builder.build(get_agent("build"), "system", None)


def _show(messages: list[Any]) -> int:
    """What the panel sends for ``messages``: their UI messages, as JSON."""
    return len(json.dumps([to_wire(m) for m in Renderer().history(messages)]))


def run() -> dict[str, float]:
    _loop, recorder = _session(4_000)  # 2,000 turns: 2,000 text + 10,000 tool parts
    tail_start = recorder.history()[-4].info.id  # the last two turns stay verbatim
    _compact(recorder, tail_start)
    for n in range(2):
        _turn(recorder, recorder.session.id, 10_000 + n)
    path, sid = recorder.store.path, recorder.session.id
    recorder.store.close()
    raw_times, reopen_times, full_times, page_times, whole_times = [], [], [], [], []
    rows: list[Any] = []
    request: list[Any] = []
    full_request: list[Any] = []
    validated = 0
    for _ in range(REPEAT):
        start = time.perf_counter()
        conn = sqlite3.connect(path)
        rows = conn.execute("SELECT data FROM part WHERE session_id=? ORDER BY id", (sid,)).fetchall()
        rows += conn.execute("SELECT data FROM message WHERE session_id=? ORDER BY id", (sid,)).fetchall()
        conn.close()
        raw_times.append(time.perf_counter() - start)

        start = time.perf_counter()
        store = SqliteStore(Path(path))
        close_orphans(store, sid)
        request = _build(Recorder(store, Bus(), store.get_session(sid)))
        reopen_times.append(time.perf_counter() - start)
        validated = store.rows_read
        store.close()

        start = time.perf_counter()
        store = SqliteStore(Path(path))
        close_orphans(store, sid)
        recorder = Recorder(store, Bus(), store.get_session(sid))
        recorder.history()
        full_request = _build(recorder)
        full_times.append(time.perf_counter() - start)
        store.close()

        store = SqliteStore(Path(path))
        start = time.perf_counter()
        _show(page_before(store, sid)[0])
        page_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        _show(store.messages(sid))
        whole_times.append(time.perf_counter() - start)
        store.close()
    assert json.dumps(full_request) == json.dumps(request)
    raw, reopen, full, panel, whole = (
        statistics.median(t) for t in (raw_times, reopen_times, full_times, page_times, whole_times)
    )
    return {
        "parts": len(rows),
        "raw_s": raw,
        "reopen_s": reopen,
        "full_s": full,
        "rows_validated": validated,
        "ratio": reopen / raw,
        "request_messages": len(request),
        "panel_s": panel,
        "panel_whole_s": whole,
    }


if __name__ == "__main__":
    print(run())
