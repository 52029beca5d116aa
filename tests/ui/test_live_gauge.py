"""The live gauge drives any view, including the headless stand-in (no widget)."""

from __future__ import annotations

from pathlib import Path

from jupyter_agent.core.messages import AssistantMessage, Session, Tokens, UserMessage
from jupyter_agent.storage.sqlite_store import SqliteStore
from jupyter_agent.ui.cell_output import NoView
from jupyter_agent.ui.live_gauge import LiveGauge


def test_a_second_headless_prompt_shows_the_gauge_on_the_stand_in_view(tmp_path: Path) -> None:
    """A session with a finished answer starts the gauge at once: ``NoView`` takes the cost too."""
    store = SqliteStore.for_directory(tmp_path)
    store.create_session(Session(id="ses_1", directory=str(tmp_path)))
    store.update_message(UserMessage(id="msg_1", session_id="ses_1"))
    answer = AssistantMessage(
        id="msg_2", session_id="ses_1", parent_id="msg_1", tokens=Tokens(input=900, output=100)
    )
    store.update_message(answer)
    gauge = LiveGauge(NoView(), "ses_1", 10_000, store)
    assert gauge.shown == 1_000
    store.close()
