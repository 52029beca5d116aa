"""Reopening a long session reads only its window; everything else loads on demand.

Real SQLite files; the store counts the rows it validates (``rows_read``), so a reopen
that read the whole session would show it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from jupyter_agent.agent.recorder import Recorder
from jupyter_agent.agent.request import RequestBuilder
from jupyter_agent.context.prune import select_prune
from jupyter_agent.core import cost, ids
from jupyter_agent.core.agents import get_agent
from jupyter_agent.core.bus import Bus
from jupyter_agent.core.messages import (
    AssistantMessage,
    CompactionPart,
    Session,
    TextPart,
    ToolPart,
    ToolStateCompleted,
    ToolStateRunning,
    ToolTimeCompleted,
    ToolTimeRunning,
    UserMessage,
)
from jupyter_agent.session.export import export_json_lines
from jupyter_agent.storage.sqlite_store import SqliteStore


def _turn(rec: Recorder, n: int, output: str = "", compacted: int | None = None) -> str:
    """A prompt and an answer with five tool results; returns the prompt's id."""
    sid = rec.session.id
    user = rec.message(UserMessage(id=ids.ascending("msg"), session_id=sid))
    rec.part(TextPart(id=ids.ascending("prt"), session_id=sid, message_id=user.id, text=f"question {n}"))
    answer = AssistantMessage(
        id=ids.ascending("msg"), session_id=sid, parent_id=user.id, finish="tool-calls", cost=0.01
    )
    rec.message(answer)
    for k in range(5):
        state = ToolStateCompleted(
            input={"filePath": f"f{k}.py"},
            output=output or f"line {n} {k}\n" * 20,
            title="r",
            time=ToolTimeCompleted(start=1, end=2, compacted=compacted),
        )
        part = ToolPart(
            id=ids.ascending("prt"), session_id=sid, message_id=answer.id, call_id=f"c{n}_{k}", tool="read"
        )
        rec.part(part.model_copy(update={"state": state}))
    return user.id


def _compact(rec: Recorder, tail_start: str | None, *, ok: bool = True) -> str:
    """A compaction (marker, then its summary: completed, or failed)."""
    sid = rec.session.id
    user = rec.message(UserMessage(id=ids.ascending("msg"), session_id=sid))
    marker = CompactionPart(
        id=ids.ascending("prt"), session_id=sid, message_id=user.id, auto=True, tail_start_id=tail_start
    )
    rec.part(marker)
    summary = AssistantMessage(
        id=ids.ascending("msg"),
        session_id=sid,
        parent_id=user.id,
        summary=True,
        finish="stop" if ok else "error",
        cost=0.02,
    )
    rec.message(summary)
    rec.part(TextPart(id=ids.ascending("prt"), session_id=sid, message_id=summary.id, text="## Goal\n…"))
    return user.id


def _long_session(folder: Path, turns: int = 60, after: int = 2) -> tuple[Path, str, str]:
    """``turns`` turns, a compaction keeping the last two verbatim, ``after`` more turns."""
    store = SqliteStore.for_directory(folder)
    session = store.create_session(Session(id=ids.ascending("ses"), directory=str(folder)))
    rec = Recorder(store, Bus(), session)
    starts = [_turn(rec, n) for n in range(turns)]
    _compact(rec, starts[-2])
    for n in range(after):
        _turn(rec, turns + n)
    store.close()
    return store.path, session.id, starts[-2]


def _rows(path: Path, sid: str, since: str = "") -> int:
    conn = sqlite3.connect(path)
    try:
        msgs = conn.execute("SELECT COUNT(*) FROM message WHERE session_id=? AND id>=?", (sid, since))
        parts = conn.execute("SELECT COUNT(*) FROM part WHERE session_id=? AND message_id>=?", (sid, since))
        return int(msgs.fetchone()[0]) + int(parts.fetchone()[0])
    finally:
        conn.close()


def _request(rec: Recorder) -> list[dict[str, Any]]:
    return RequestBuilder(rec, "openai/test", False, False).build(get_agent("build"), "system", None)


def _dump(history: list[Any]) -> list[Any]:
    return [m.model_dump() for m in history]


def test_a_reopen_validates_only_the_rows_after_the_last_compaction(tmp_path: Path) -> None:
    path, sid, tail_start = _long_session(tmp_path)
    store = SqliteStore(path)
    rec = Recorder(store, Bus(), store.get_session(sid))
    window_rows = _rows(path, sid, tail_start)
    assert store.rows_read == window_rows + 1  # the window, and the compaction part that located it
    assert window_rows * 10 < _rows(path, sid)
    assert not rec.complete
    request = _request(rec)
    assert [m["role"] for m in request][:3] == ["system", "user", "assistant"]  # compaction, summary

    full = SqliteStore(path)
    whole = Recorder(full, Bus(), full.get_session(sid))
    whole.history()
    assert json.dumps(_request(whole)) == json.dumps(request)
    assert select_prune(rec.window()) == select_prune(whole.history())
    assert rec.spent() == cost.total(whole.history())

    before = store.rows_read
    history = rec.history()  # on demand: the older messages load now, once
    assert rec.complete and store.rows_read - before == _rows(path, sid) - window_rows
    assert _dump(history) == _dump(full.messages(sid))
    assert rec.history() is history and store.rows_read - before == _rows(path, sid) - window_rows
    store.close()
    full.close()


def test_the_window_reaches_back_as_far_as_prune_looks(tmp_path: Path) -> None:
    """Right after a compaction the protected turns hide its summary from prune, which
    then walks into the tail and beyond, until an output it already cleared."""
    store = SqliteStore.for_directory(tmp_path)
    session = store.create_session(Session(id=ids.ascending("ses"), directory=str(tmp_path)))
    rec = Recorder(store, Bus(), session)
    big = "word " * 4_000
    old = [_turn(rec, n, compacted=5) for n in range(80)]  # pruned long ago (more than a page)
    fresh = [_turn(rec, 100 + n, big) for n in range(8)]
    _compact(rec, fresh[-1])
    _turn(rec, 200)
    store.close()

    store = SqliteStore(store.path)
    lazy = Recorder(store, Bus(), store.get_session(session.id))
    window = lazy.window()
    assert window[0].info.id > old[0] and window[0].info.id <= old[-1]  # not all of it, and past the tail
    full = Recorder(store, Bus(), store.get_session(session.id)).history()
    chosen = select_prune(window)
    assert chosen and chosen == select_prune(full)

    assert lazy.mark_compacted(chosen, 7) == len(chosen)
    cleared = {
        p.id
        for m in lazy.window()
        for p in m.parts
        if isinstance(p, ToolPart) and isinstance(p.state, ToolStateCompleted) and p.state.time.compacted == 7
    }
    assert cleared == set(chosen)
    stored = {p.id: p for m in store.messages(session.id) for p in m.parts}
    assert all(stored[pid].state.time.compacted == 7 for pid in chosen)  # type: ignore[union-attr]
    assert lazy.changes_since(0)  # incremental readers see the change
    store.close()


def test_a_failed_compaction_cuts_nothing_so_the_window_starts_at_the_one_before(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    session = store.create_session(Session(id=ids.ascending("ses"), directory=str(tmp_path)))
    rec = Recorder(store, Bus(), session)
    starts = [_turn(rec, n) for n in range(20)]
    good = _compact(rec, starts[-1])
    more = [_turn(rec, 50 + n) for n in range(3)]
    _compact(rec, more[-1], ok=False)
    _turn(rec, 60)
    _turn(rec, 61)
    store.close()

    store = SqliteStore(store.path)
    lazy = Recorder(store, Bus(), store.get_session(session.id))
    assert lazy.window()[0].info.id == starts[-1] < good
    whole = Recorder(store, Bus(), store.get_session(session.id))
    whole.history()
    assert json.dumps(_request(lazy)) == json.dumps(_request(whole))
    store.close()


def test_a_session_without_compaction_loads_whole(tmp_path: Path) -> None:
    path, sid, _ = _long_session(tmp_path, turns=5, after=0)
    store = SqliteStore(path)
    with sqlite3.connect(path) as conn:  # the only compaction never completed
        conn.execute("DELETE FROM message WHERE json_extract(data, '$.summary') = 1")
    conn.close()
    rec = Recorder(store, Bus(), store.get_session(sid))
    assert rec.complete and _dump(rec.window()) == _dump(store.messages(sid))
    store.close()


def test_export_and_fork_see_the_whole_session(make_runtime: Any) -> None:
    runtime = make_runtime()
    session = runtime.new_session()
    rec = runtime.recorder(session.id)
    starts = [_turn(rec, n) for n in range(12)]
    _compact(rec, starts[-1])
    _turn(rec, 98)
    _turn(rec, 99)
    everything = _dump(runtime.store.messages(session.id))

    reopened = make_runtime()
    rec = reopened.recorder(session.id)
    assert len(rec.window()) < len(everything)
    lines = list(export_json_lines(session, rec.history()))
    assert lines == list(export_json_lines(session, runtime.store.messages(session.id)))
    assert _dump(rec.history()) == everything
    fork = reopened.fork(session.id)
    assert len(reopened.store.messages(fork.id)) == len(everything)
    assert not reopened.recorder(fork.id).complete  # the copy is lazy too


def test_recovery_reads_only_what_a_dead_process_left_open(tmp_path: Path) -> None:
    """A pending/running tool part or an open answer; a tool's input or output merely
    mentioning a running status is not one."""
    from jupyter_agent.agent.recovery import close_orphans

    store = SqliteStore.for_directory(tmp_path)
    session = store.create_session(Session(id=ids.ascending("ses"), directory=str(tmp_path)))
    rec = Recorder(store, Bus(), session)
    for n in range(10):
        _turn(rec, n, output='{"status":"running"} in an output')
    user = rec.message(UserMessage(id=ids.ascending("msg"), session_id=session.id))
    answer = rec.message(AssistantMessage(id=ids.ascending("msg"), session_id=session.id, parent_id=user.id))
    decoy = ToolPart(
        id=ids.ascending("prt"),
        session_id=session.id,
        message_id=answer.id,
        call_id="d",
        tool="read",
        state=ToolStateCompleted(
            input={"status": "running"}, output="x", title="r", time=ToolTimeCompleted(start=1, end=2)
        ),
    )
    rec.part(decoy)
    running = ToolPart(
        id=ids.ascending("prt"),
        session_id=session.id,
        message_id=answer.id,
        call_id="r",
        tool="bash",
        state=ToolStateRunning(input={"command": "sleep 9"}, time=ToolTimeRunning(start=1)),
    )
    rec.part(running)
    store.rows_read = 0
    open_ = store.unfinished(session.id)
    assert [(m.info.id, [p.id for p in m.parts]) for m in open_] == [(answer.id, [running.id])]
    assert store.rows_read == 2  # the open answer and the running part, found by index
    assert close_orphans(store, session.id) == 2
    after = {p.id: p for m in store.messages(session.id) for p in m.parts}
    assert after[running.id].state.status == "error" and after[decoy.id].state.status == "completed"  # type: ignore[union-attr]
    assert close_orphans(store, session.id) == 0  # nothing left open
    store.close()


async def test_a_prompt_on_a_reopened_long_session_reads_only_its_window(
    make_runtime: Any, scripted_server: Any
) -> None:
    """The whole loop (state scan, request, prune, budget, recovery on claim) after a
    restart: the model sees the compacted view, and the older rows are never read."""
    from scripted_server import Reply

    runtime = make_runtime()
    session = runtime.new_session(title="a long analysis")
    rec = runtime.recorder(session.id)
    starts = [_turn(rec, n) for n in range(60)]
    _compact(rec, starts[-2])
    for n in range(2):
        _turn(rec, 100 + n)
    runtime.store.close()
    path = runtime.store.path
    with sqlite3.connect(path) as conn:
        older = conn.execute("SELECT COUNT(*) FROM message WHERE id<?", (starts[-2],)).fetchone()[0]
    conn.close()

    reopened = make_runtime(budget={"session_usd": 100})
    reopened.store.rows_read = 0
    scripted_server.queue(Reply(text="done"))
    await reopened.prompt("and now?", session_id=session.id)
    sent = scripted_server.requests[-1]["body"]["messages"]
    assert [m["role"] for m in sent][:3] == ["system", "user", "assistant"]  # the compaction, its summary
    assert "question 0" not in json.dumps(sent)
    # the window, the compaction part that found it, and the older messages' costs (the
    # budget; read without their parts): none of the older parts
    assert 0 < reopened.store.rows_read <= _rows(path, session.id, starts[-2]) + 1 + older
    assert reopened.store.rows_read * 3 < _rows(path, session.id)
