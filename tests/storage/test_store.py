"""The SQLite store with real files: round trips, cascade, coalescing, bad databases."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from jupyter_agent.core.messages import (
    AssistantMessage,
    Attachment,
    CompactionPart,
    FileChange,
    FilePart,
    MessageError,
    PatchPart,
    ReasoningPart,
    RetryError,
    RetryPart,
    Session,
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
    UserMessage,
)
from jupyter_agent.storage import migrations
from jupyter_agent.storage.sqlite_store import SessionNotFound, SqliteStore, StoreVersionError


def _every_part(sid: str, mid: str) -> list[object]:
    common = {"session_id": sid, "message_id": mid}
    return [
        TextPart(id="prt_01", **common, text="hello", synthetic=True),
        ReasoningPart(id="prt_02", **common, text="thinking"),
        FilePart(id="prt_03", **common, mime="image/png", url="data:image/png;base64,AA==", filename="p.png"),
        ToolPart(
            id="prt_04",
            **common,
            call_id="c1",
            tool="bash",
            state=ToolStatePending(input={"a": 1}, raw='{"a":1}'),
        ),
        ToolPart(
            id="prt_05",
            **common,
            call_id="c2",
            tool="bash",
            state=ToolStateRunning(input={"command": "ls"}, title="ls", metadata={"output": "x"}),
        ),
        ToolPart(
            id="prt_06",
            **common,
            call_id="c3",
            tool="read",
            state=ToolStateCompleted(
                input={"filePath": "a"},
                output="out",
                title="a",
                metadata={"k": [1, 2]},
                attachments=[Attachment(mime="image/png", url="data:image/png;base64,AA==")],
                time=ToolTimeCompleted(start=1, end=2, compacted=3),
            ),
        ),
        ToolPart(
            id="prt_07",
            **common,
            call_id="c4",
            tool="edit",
            state=ToolStateError(
                input={}, error="boom", metadata={"interrupted": True}, time=ToolTimeError(start=1, end=2)
            ),
        ),
        StepStartPart(id="prt_08", **common, snapshot="abc"),
        StepFinishPart(
            id="prt_09", **common, reason="tool-calls", tokens=Tokens(input=5, output=6), cost=0.25
        ),
        CompactionPart(id="prt_10", **common, auto=True, overflow=True, tail_start_id="msg_x"),
        SubtaskPart(id="prt_11", **common, prompt="find x", description="find", agent="explore", model="m"),
        RetryPart(id="prt_12", **common, attempt=2, error=RetryError(message="429", status=429), next=99),
        PatchPart(id="prt_13", **common, hash="h", files=[FileChange(path="/a", before=None, after="x")]),
    ]


def test_every_shape_round_trips(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    session = store.create_session(Session(id="ses_1", notebook_path="/n.ipynb", title="t", parent_id=None))
    user = UserMessage(id="msg_1", session_id="ses_1", agent="plan", model="m")
    assistant = AssistantMessage(
        id="msg_2",
        session_id="ses_1",
        parent_id="msg_1",
        tokens=Tokens(input=1, output=2, reasoning=3),
        cost=1.5,
        finish="stop",
        error=MessageError(name="api", message="x", status=500),
        summary=True,
    )
    store.update_message(user)
    store.update_message(assistant)
    parts = _every_part("ses_1", "msg_2")
    for part in parts:
        store.update_part(part)  # type: ignore[arg-type]
    store.close()
    again = SqliteStore.for_directory(tmp_path)
    loaded = again.messages("ses_1")
    assert [m.info for m in loaded] == [user, assistant]
    assert loaded[1].parts == parts
    assert again.get_session("ses_1").title == session.title
    again.close()


def test_folder_gets_gitignore(tmp_path: Path) -> None:
    SqliteStore.for_directory(tmp_path).close()
    assert (tmp_path / ".jupyter-agent" / ".gitignore").read_text() == "*\n"


def test_delete_cascades_to_messages_parts_and_children(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1"))
    store.create_session(Session(id="ses_2", parent_id="ses_1"))
    for sid in ("ses_1", "ses_2"):
        store.update_message(UserMessage(id=f"msg_{sid}", session_id=sid))
        store.update_part(TextPart(id=f"prt_{sid}", session_id=sid, message_id=f"msg_{sid}", text="x"))
    store.delete_session("ses_1")
    conn = sqlite3.connect(store.path)
    assert conn.execute("SELECT COUNT(*) FROM session").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM message").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM part").fetchone()[0] == 0
    store.close()


def test_streaming_writes_are_coalesced(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1"))
    store.update_message(UserMessage(id="msg_1", session_id="ses_1"))
    part = TextPart(id="prt_1", session_id="ses_1", message_id="msg_1")
    for _i in range(1000):
        part = part.model_copy(update={"text": part.text + "x"})
        store.update_part(part, delta="x", final=False)
    assert store.writes < 50
    store.update_part(part, final=True)
    raw = sqlite3.connect(store.path).execute("SELECT data FROM part").fetchone()[0]
    assert TextPart.model_validate_json(raw).text == "x" * 1000
    store.close()


def test_dirty_part_is_written_by_the_timer(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1"))
    store.update_message(UserMessage(id="msg_1", session_id="ses_1"))
    part = TextPart(id="prt_1", session_id="ses_1", message_id="msg_1", text="a")
    store.update_part(part, final=False)
    store.update_part(part.model_copy(update={"text": "ab"}), final=False)  # coalesced, pending
    deadline = time.monotonic() + 5
    text = ""
    while time.monotonic() < deadline:
        row = sqlite3.connect(store.path).execute("SELECT data FROM part").fetchone()
        text = TextPart.model_validate_json(row[0]).text
        if text == "ab":
            break
        time.sleep(0.05)
    assert text == "ab"
    store.close()


def test_corrupt_database_is_moved_aside(tmp_path: Path) -> None:
    folder = tmp_path / ".jupyter-agent"
    folder.mkdir()
    (folder / "sessions.db").write_bytes(b"this is not a database" * 100)
    store = SqliteStore.for_directory(tmp_path)
    assert store.notice is not None and "corrupt" in store.notice and "sessions.db" in store.notice
    moved = list(folder.glob("sessions.db.corrupt-*"))
    assert len(moved) == 1 and moved[0].read_bytes().startswith(b"this is not")
    store.create_session(Session(id="ses_1"))
    assert store.get_session("ses_1").id == "ses_1"
    store.close()


def test_newer_schema_is_refused_untouched(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.close()
    conn = sqlite3.connect(store.path)
    conn.execute("INSERT INTO schema_version(version) VALUES (?)", (migrations.SCHEMA_VERSION + 5,))
    conn.commit()
    conn.close()
    before = store.path.read_bytes()
    with pytest.raises(StoreVersionError) as info:
        SqliteStore(store.path)
    assert str(migrations.SCHEMA_VERSION + 5) in str(info.value) and "Upgrade" in str(info.value)
    assert store.path.read_bytes() == before


def test_unknown_session_lists_close_matches(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_abcdef"))
    with pytest.raises(SessionNotFound) as info:
        store.get_session("ses_abcdxf")
    assert "ses_abcdef" in str(info.value)
    store.close()


def test_mark_compacted_only_touches_completed_tools(tmp_path: Path) -> None:
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="s"))
    store.update_message(AssistantMessage(id="m", session_id="s", parent_id="u"))
    for part in _every_part("s", "m"):
        store.update_part(part)  # type: ignore[arg-type]
    assert store.mark_compacted(["prt_04", "prt_06", "prt_07", "nope"], 42) == 1
    parts = {p.id: p for p in store.messages("s")[0].parts}
    assert parts["prt_06"].state.time.compacted == 42  # type: ignore[union-attr]
    store.close()
