"""The SQLite store with real files: round trips, cascade, listing, compaction marks."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from jupyter_agent.core.messages import (
    AnyPart,
    AssistantMessage,
    Attachment,
    CacheTokens,
    CompactionPart,
    FileChange,
    FilePart,
    MessageError,
    MessageTime,
    PartTime,
    PatchPart,
    ReasoningPart,
    RetryError,
    RetryPart,
    RevertState,
    Session,
    SessionTime,
    StepFinishPart,
    StepStartPart,
    SubtaskPart,
    TextPart,
    Tokens,
    ToolPart,
    ToolStateCompleted,
    ToolStateError,
    ToolStatePending,
    ToolStateRunning,
    ToolTimeCompleted,
    ToolTimeError,
    ToolTimeRunning,
    UserMessage,
)
from jupyter_agent.storage.paths import db_path
from jupyter_agent.storage.sqlite_store import SessionNotFound, SqliteStore


def every_part(sid: str, mid: str) -> list[AnyPart]:
    """One part of each type (and each tool state), every field away from its default."""
    c = {"session_id": sid, "message_id": mid}
    png = "data:image/png;base64,iVBORw0KGgo="
    return [
        TextPart(
            id="prt_01", **c, text="hello ü", synthetic=True, ignored=True, time=PartTime(start=5, end=6)
        ),
        ReasoningPart(id="prt_02", **c, text="thinking", time=PartTime(start=7, end=8)),
        FilePart(id="prt_03", **c, mime="image/png", url=png, filename="plot.png"),
        ToolPart(
            id="prt_04", **c, call_id="c1", tool="bash", state=ToolStatePending(input={"a": 1}, raw='{"a":1')
        ),
        ToolPart(
            id="prt_05",
            **c,
            call_id="c2",
            tool="python",
            state=ToolStateRunning(
                input={"code": "1+1"}, title="run", metadata={"o": "x"}, time=ToolTimeRunning(start=11)
            ),
        ),
        ToolPart(
            id="prt_06",
            **c,
            call_id="c3",
            tool="read",
            state=ToolStateCompleted(
                input={"filePath": "a"},
                output="out",
                title="a",
                metadata={"k": [1, 2]},
                attachments=[Attachment(mime="image/png", url=png, filename="p.png")],
                time=ToolTimeCompleted(start=1, end=2, compacted=3),
            ),
        ),
        ToolPart(
            id="prt_07",
            **c,
            call_id="c4",
            tool="edit",
            state=ToolStateError(
                input={"x": None},
                error="boom",
                metadata={"interrupted": True},
                time=ToolTimeError(start=1, end=2),
            ),
        ),
        StepStartPart(id="prt_08", **c, snapshot="abc"),
        StepFinishPart(
            id="prt_09",
            **c,
            reason="tool-calls",
            cost=0.25,
            snapshot="def",
            tokens=Tokens(input=5, output=6, reasoning=7, cache=CacheTokens(read=8, write=9), total=35),
        ),
        CompactionPart(id="prt_10", **c, auto=True, overflow=True, tail_start_id="msg_x"),
        SubtaskPart(id="prt_11", **c, prompt="find x", description="find", agent="explore", model="m"),
        RetryPart(
            id="prt_12",
            **c,
            attempt=2,
            error=RetryError(message="429", status=429),
            time=MessageTime(created=3, completed=4),
            next=99,
        ),
        PatchPart(
            id="prt_13",
            **c,
            hash="h",
            files=[
                FileChange(path="/a", before=None, after="x"),
                FileChange(path="/b.bin", before="AAE=", after=None, binary=True),
            ],
        ),
    ]


def _seed(store: SqliteStore, sid: str = "ses_1", parent: str | None = None) -> None:
    store.create_session(Session(id=sid, parent_id=parent))
    store.update_message(UserMessage(id=f"msg_{sid}", session_id=sid))
    store.update_part(TextPart(id=f"prt_{sid}", session_id=sid, message_id=f"msg_{sid}", text="x"))


def _count(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    finally:
        conn.close()


def test_every_shape_survives_store_and_load(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_0"))
    session = Session(
        id="ses_1",
        notebook_path="/w/n.ipynb",
        directory="/w",
        title="t",
        parent_id="ses_0",
        time=SessionTime(created=1, updated=2, compacting=3),
        revert=RevertState(message_id="msg_1", part_id="prt_01", snapshot="snap"),
    )
    store.create_session(session)
    user = UserMessage(
        id="msg_1", session_id="ses_1", agent="plan", model="m", time=MessageTime(created=10, completed=11)
    )
    assistant = AssistantMessage(
        id="msg_2",
        session_id="ses_1",
        parent_id="msg_1",
        agent="compaction",
        model="x/y",
        time=MessageTime(created=12, completed=13),
        cost=1.5,
        finish="stop",
        summary=True,
        tokens=Tokens(input=1, output=2, reasoning=3, cache=CacheTokens(read=4, write=5), total=6),
        error=MessageError(name="api", message="x", status=500, retryable=True, metadata={"a": 1}),
    )
    store.update_message(user)
    store.update_message(assistant)
    parts = every_part("ses_1", "msg_2")
    for part in reversed(parts):  # stored out of order: the store orders by id
        store.update_part(part)
    saved = store.update_session(session)
    store.close()

    again = SqliteStore.for_directory(tmp_path)
    loaded = again.messages("ses_1")
    assert [m.info for m in loaded] == [user, assistant]
    assert loaded[0].parts == []
    assert loaded[1].parts == parts
    assert again.get_session("ses_1") == saved
    again.close()
    raw = sqlite3.connect(again.path).execute("SELECT data FROM part WHERE id='prt_06'").fetchone()
    assert raw[0] == parts[5].model_dump_json()


def test_folder_gets_gitignore_and_keeps_an_edited_one(tmp_path: Path) -> None:
    SqliteStore.for_directory(tmp_path).close()
    ignore = tmp_path / ".jupyter-agent" / ".gitignore"
    assert ignore.read_text() == "*\n"
    ignore.write_text("*.db\n")
    SqliteStore.for_notebook(tmp_path / "analysis.ipynb").close()
    assert ignore.read_text() == "*.db\n"
    assert (tmp_path / ".jupyter-agent" / "sessions.db").is_file()


def test_delete_cascades_to_messages_parts_and_children(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    _seed(store, "ses_1")
    _seed(store, "ses_2", parent="ses_1")
    _seed(store, "ses_3", parent="ses_2")
    _seed(store, "ses_other")
    store.delete_session("ses_1")
    assert [s.id for s in store.list_sessions()] == ["ses_other"]
    assert (_count(store.path, "message"), _count(store.path, "part")) == (1, 1)
    store.close()


def test_removing_messages_and_parts(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    _seed(store, "ses_1")
    extra = TextPart(id="prt_z", session_id="ses_1", message_id="msg_ses_1", text="y")
    store.update_part(extra)
    store.remove_part(extra)
    assert [p.id for p in store.messages("ses_1")[0].parts] == ["prt_ses_1"]
    store.remove_message("ses_1", "msg_ses_1")
    assert store.messages("ses_1") == []
    assert _count(store.path, "part") == 0
    store.close()


def test_unknown_session_lists_close_matches(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_abcdef"))
    with pytest.raises(KeyError) as info:
        store.get_session("ses_abcdxf")
    assert isinstance(info.value, SessionNotFound)
    assert "ses_abcdxf" in str(info.value) and "Did you mean: ses_abcdef" in str(info.value)
    with pytest.raises(SessionNotFound) as far:
        store.get_session("zzz")
    assert "Did you mean" not in str(far.value)
    store.close()


def test_list_sessions_by_notebook_most_recent_first(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    for sid in ("ses_a", "ses_b"):
        store.create_session(Session(id=sid, notebook_path="/n.ipynb"))
    store.create_session(Session(id="ses_c", notebook_path="/other.ipynb"))
    before = store.get_session("ses_a").time.updated
    time.sleep(0.005)  # a later millisecond than the three creations
    store.update_message(UserMessage(id="msg_1", session_id="ses_a"))  # ses_a is active again
    assert [s.id for s in store.list_sessions("/n.ipynb")] == ["ses_a", "ses_b"]
    assert {s.id for s in store.list_sessions()} == {"ses_a", "ses_b", "ses_c"}
    assert store.list_sessions("/none.ipynb") == []
    assert store.get_session("ses_a").time.updated >= before
    store.close()


def test_mark_compacted_only_touches_completed_tools(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="s"))
    store.update_message(AssistantMessage(id="m", session_id="s", parent_id="u"))
    parts = every_part("s", "m")
    fresh = ToolPart(
        id="prt_20",
        session_id="s",
        message_id="m",
        call_id="c9",
        tool="grep",
        state=ToolStateCompleted(output="o", time=ToolTimeCompleted(start=1)),
    )
    for part in [*parts, fresh]:
        store.update_part(part)
    ids = ["prt_01", "prt_04", "prt_05", "prt_06", "prt_07", "prt_20", "nope"]
    assert store.mark_compacted(ids, 42) == 2
    assert store.mark_compacted(ids, 42) == 0
    loaded = {p.id: p for p in store.messages("s")[0].parts}
    for pid in ("prt_06", "prt_20"):
        part = loaded[pid]
        assert isinstance(part, ToolPart) and isinstance(part.state, ToolStateCompleted)
        assert part.state.time.compacted == 42
        assert part.state.output == "o" if pid == "prt_20" else part.state.output == "out"
    untouched = [p for p in parts if p.id != "prt_06"]
    assert [loaded[p.id] for p in untouched] == untouched
    store.close()


def test_threads_share_one_store(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="s"))
    errors: list[BaseException] = []

    def stream(n: int) -> None:
        try:
            store.update_message(UserMessage(id=f"msg_{n}", session_id="s"))
            for k in range(40):
                part = TextPart(id=f"prt_{n}_{k:03}", session_id="s", message_id=f"msg_{n}")
                for i in range(5):
                    store.update_part(part.model_copy(update={"text": str(i)}), final=False)
                store.update_part(part.model_copy(update={"text": f"done {k}"}))
                store.messages("s")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=stream, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    loaded = store.messages("s")
    assert [len(m.parts) for m in loaded] == [40] * 4
    assert all(p.text == f"done {int(p.id[-3:])}" for m in loaded for p in m.parts)  # type: ignore[union-attr]
    store.close()


def test_closed_store_refuses_writes(tmp_path: Path) -> None:
    store = SqliteStore(db_path(tmp_path))
    store.close()
    store.close()  # twice is fine
    with pytest.raises(sqlite3.ProgrammingError):
        store.create_session(Session(id="s"))
    with pytest.raises(sqlite3.ProgrammingError):
        store.update_part(TextPart(id="p", session_id="s", message_id="m"), final=False)


def test_readers_that_need_less_read_less(tmp_path: Path) -> None:
    """``since`` keeps a cell's own messages; ``parts=False`` reads the messages alone,
    streaming (unflushed) parts included only where asked for."""
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1", directory=str(tmp_path)))
    for n in range(1, 5):
        store.update_message(UserMessage(id=f"msg_{n}", session_id="ses_1"))
        store.update_part(TextPart(id=f"prt_{n}", session_id="ses_1", message_id=f"msg_{n}", text=str(n)))
    store.update_part(
        TextPart(id="prt_5", session_id="ses_1", message_id="msg_4", text="streaming"), final=False
    )
    since = store.messages("ses_1", "msg_3")
    assert [m.info.id for m in since] == ["msg_3", "msg_4"]
    assert [p.id for p in since[1].parts] == ["prt_4", "prt_5"]
    bare = store.messages("ses_1", parts=False)
    assert [m.info.id for m in bare] == ["msg_1", "msg_2", "msg_3", "msg_4"]
    assert all(m.parts == [] for m in bare)
    assert store.messages("ses_1") == store.messages("ses_1", "")
    last = store.last_message("ses_1")  # Stop's notice and the panel's New read only this
    assert last is not None and last.info.id == "msg_4" and [p.id for p in last.parts] == ["prt_4", "prt_5"]
    store.create_session(Session(id="ses_2", directory=str(tmp_path)))
    assert store.last_message("ses_2") is None
    store.close()
